"""Floor probe: an empty process plus what any search command over SQLite imports (argparse, json,
sqlite3) and one query on an open database: the floor of the `search` CLI process.

python benchmarks/probes/floor_search_imports.py
"""

import argparse
import json
import sqlite3

sqlite3.connect(":memory:").execute("SELECT 1").fetchall()
print(json.dumps(bool(argparse)))
