"""Computer players: what they see (:mod:`~bbspoker.bots.draw40.observation`), how they
decide (:mod:`~bbspoker.bots.draw40.policies`, :mod:`~bbspoker.bots.draw40.equity`) and the simulator that
measures them (:mod:`~bbspoker.bots.sim`)."""
