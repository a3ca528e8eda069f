"""A small Python worker (docs/workers.md, "Writing a worker in Python"): three benchmarks on the
standard library, with the python_gc_collections counter. perfengine starts it as

    python3 workers/python/example_worker.py

(a spec's `worker = ["python3", "{spec_dir}/../workers/python/example_worker.py"]`).
"""
import json
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the library in a source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfengine_worker  # noqa: E402

worker = perfengine_worker.Worker()

words = [f"w{(i * 7919) % 2000:05d}" for i in range(2000)]
worker.benchmark("sort_words", lambda: sorted(words))

document = {"id": 7, "tags": words[:50], "nested": [{"k": i, "v": str(i)} for i in range(100)]}
text = json.dumps(document)
worker.benchmark("json_loads", lambda: json.loads(text))


@worker.setup("json_dumps")
def json_dumps():
    """A set-up of its own: the value is built once, before the hello."""
    value = json.loads(text)
    random.Random(1).shuffle(value["tags"])
    return lambda: json.dumps(value, sort_keys=True)


worker.serve()
