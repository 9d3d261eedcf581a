# venuskit: `make test` sets everything up and runs the tests; `make run ...` sets up and runs the agent.
VENV ?= .venv
EXTRAS ?= browser,dev,train,verify,desktop,ray,android
PYTEST_ARGS ?=
# Tests run in parallel processes (pytest-xdist), one per core, at most 4 (each holds its own Chromium, world
# server and models). Each process takes the tests in file order, so a file's fixtures start at most once per
# process; tests are spread one by one (not file by file) because the browser oracle files take most of the time,
# except the groups tests/conftest.py names (tests sharing an expensive fixture stay in one process).
TEST_JOBS ?= auto
PARALLEL = -n $(TEST_JOBS) --maxprocesses=4 --dist loadgroup

.PHONY: setup setup-vllm test test-fast run bench

setup:
	scripts/setup.sh $(EXTRAS)

setup-vllm:
	scripts/setup-vllm.sh

# Every test, browser and vLLM integration included. Exit code 5 ("no tests collected") is a failure here.
test: setup setup-vllm
	$(VENV)/bin/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

# Without the real-browser, real-desktop and vLLM tests (seconds, for quick edits).
test-fast: setup
	$(VENV)/bin/python -m pytest $(PARALLEL) -m "not browser and not desktop and not vllm and not slow" $(PYTEST_ARGS)

# make run TASK="Find the cheapest flight" START_URL=http://127.0.0.1:8080/ MODEL=http://127.0.0.1:8000/v1 MODEL_NAME=ui-venus-2
# With no MODEL: venus-nano (the embedded default policy) on a world task; prints the contract verdict and the
# viewer page. WORLD=task_id SEED=n pick another task (`venus world tasks`).
WORLD ?= mail.star_message
SEED ?= 5000
run: setup
ifeq ($(MODEL),)
	$(VENV)/bin/venus run --world "$(WORLD)" --seed "$(SEED)" $(RUN_ARGS)
else
	$(VENV)/bin/venus run --task "$(TASK)" --start-url "$(START_URL)" --model "$(MODEL)" --model-name "$(MODEL_NAME)" $(RUN_ARGS)
endif

bench: setup
	$(VENV)/bin/python benchmarks/step_overhead.py
