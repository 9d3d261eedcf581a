"""Runs: one task, one env and one policy joined into a recorded episode, and many of them at once.

    world.py     run_world_task: a world task in real Chromium, its contract verdict in the episode's manifest
    desktop.py   run_desktop_task: a desktop task on Xvfb with the real apps, likewise
    policies.py  the oracle-driven policies (oracle, recorder, attacker) and PolicySpec for model policies
    parallel.py  run_jobs: serially, on worker processes, or as Ray actors, with infrastructure retries
    failures.py  how an episode's infrastructure failure is told from the agent's

The rooms this one joins (tasks, agent, envs, world, record) never import each other; the suites (`eval`) and
the flywheel call into here.
"""
