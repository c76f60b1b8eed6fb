"""Computer players: what they see (:mod:`~bbspoker.bots.observation`), how they
decide (:mod:`~bbspoker.bots.policies`, :mod:`~bbspoker.bots.equity`) and the simulator that
measures them (:mod:`~bbspoker.bots.sim`)."""
