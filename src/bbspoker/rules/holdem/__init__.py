"""Fixed-limit Texas Hold'em as the Finnish network-poker design specifies it
(``verkkopokeri-fi.txt``), with pokerkit as the engine: :mod:`bbspoker.rules.holdem.game`."""

from bbspoker.rules.holdem.game import Holdem, HoldemRules, Street

__all__ = ["Holdem", "HoldemRules", "Street"]
