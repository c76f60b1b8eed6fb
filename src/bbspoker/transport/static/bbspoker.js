// The page's terminal: xterm.js connected to the door over a WebSocket (transport/web.py).
// Keys go as binary messages (UTF-8, at most 1 KiB each), the window size as a text message
// {"type": "resize", "cols": C, "rows": R}; the door's output comes as binary messages.
(function () {
  "use strict";
  var box = document.getElementById("terminal");
  var status = document.getElementById("status");
  var MIN_COLS = 80, MIN_ROWS = 24, CHUNK = 1024;
  var resizing = null;
  var term = new Terminal({
    cursorBlink: true,
    fontFamily: "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace",
    fontSize: 16,
    scrollback: 0,
    theme: { background: "#000000", foreground: "#c0c0c0" }
  });
  var fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(box);

  // The largest font size (10-24 px) at which the door's 80x24 screen still fits the space
  // left for the terminal; then the fit add-on fills that space with as many cells as fit
  // (the door draws its 80x24 screens at the top left of a larger window).
  function fitToWindow() {
    var best = 10;
    for (var size = 24; size >= 10; size -= 1) {
      term.options.fontSize = size;
      var proposed = fit.proposeDimensions();
      if (proposed && proposed.cols >= MIN_COLS && proposed.rows >= MIN_ROWS) {
        best = size;
        break;
      }
    }
    term.options.fontSize = best;
    fit.fit();
  }
  fitToWindow();

  var url = new URL("ws", window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("cols", String(term.cols));
  url.searchParams.set("rows", String(term.rows));
  url.searchParams.set("lang", document.documentElement.lang);
  var ws = new WebSocket(url.toString());
  ws.binaryType = "arraybuffer";
  var encoder = new TextEncoder();
  var heard = false;  // the door has written to the terminal

  // The door's title screen (the drawing every session opens with) while the WebSocket
  // connects, unless the door has already begun or the terminal is smaller than its
  // 80x24 screen.
  if (window.fetch && term.cols >= MIN_COLS && term.rows >= MIN_ROWS) {
    fetch("title.ans").then(function (response) {
      return response.ok ? response.text() : "";
    }).then(function (art) {
      if (art && !heard) {
        term.write(art);
      }
    }).catch(function () {});
  }

  ws.onopen = function () {
    status.textContent = status.dataset.connected;
    term.focus();
  };
  ws.onmessage = function (event) {
    if (typeof event.data !== "string") {
      heard = true;
      term.write(new Uint8Array(event.data));
    }
  };
  ws.onclose = function () {
    status.textContent = status.dataset.closed;
    status.className = "closed";
  };
  term.onData(function (data) {
    if (ws.readyState !== WebSocket.OPEN) {
      return;
    }
    var bytes = encoder.encode(data);
    for (var i = 0; i < bytes.length; i += CHUNK) {
      ws.send(bytes.subarray(i, i + CHUNK));
    }
  });
  term.onResize(function (size) {
    if (ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify({ type: "resize", cols: size.cols, rows: size.rows }));
    }
  });
  window.addEventListener("resize", function () {
    // Once the window has stopped changing for a moment: each fit repaints the door.
    clearTimeout(resizing);
    resizing = setTimeout(fitToWindow, 100);
  });

  // For tests and curious people: the screen's text, one string per row.
  window.bbspoker = {
    screen: function () {
      var buffer = term.buffer.active, rows = [];
      for (var y = 0; y < term.rows; y += 1) {
        var line = buffer.getLine(buffer.viewportY + y);
        rows.push(line ? line.translateToString(true) : "");
      }
      return rows;
    },
    size: function () { return [term.cols, term.rows]; }
  };
}());
