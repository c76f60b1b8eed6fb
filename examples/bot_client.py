#!/usr/bin/env python3
"""A computer player for bbspoker's bot port (docs/bot-protocol.md), standard library only.
It plays the calling policy: opens a game when it is the game-master, calls every bet,
asks to see hands as soon as it may (so that games end), keeps its cards, reveals. Usage: bot_client.py HOST PORT HANDLE PASSWORD TABLE [GAMES]"""
import socket
import sys

GIVE_UP = ("login_failed", "locked", "in_use", "no_table", "table_full", "busy")


def play(host, port, handle, password, table, games=1, out=print):
    """Play ``games`` games at ``table``; returns 0, or 1 if the server refused us."""
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        send = lambda message: sock.sendall((message + "\n").encode())  # noqa: E731
        send(f"10;{handle};{password}")
        send(f"13;{table}")
        played = 0
        for line in sock.makefile("r", encoding="utf-8"):
            kind, _, data = line.rstrip("\n").partition(";")
            if kind == "0":                       # a line for people
                out(data)
            elif kind == "9":                     # refused: code;text
                out("refused: " + data)
                if data.startswith(GIVE_UP):
                    return 1
            elif kind == "7":                     # a game is over: winner;pot
                played += 1
                if played >= int(games):
                    send("14;")
                    return 0
            elif kind == "1":                     # our turn: actions[;min;max]
                actions, *limits = data.split(";")
                hands = f"11;hands;{limits[0]}" if limits else ""
                for wanted, message in (("start", "11;start"), ("hands", hands),
                                        ("bet", "11;call"), ("discard", "11;discard"),
                                        ("reveal", "11;reveal")):
                    if wanted in actions.split(","):
                        send(message)
                        break
    return 0


if __name__ == "__main__":
    sys.exit(play(*sys.argv[1:]))
