"""bbspoker: Global Village BBS PoKeR reborn as a multi-user telnet door game."""

__version__ = "0.1.0"
