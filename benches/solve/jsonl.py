"""Reading the JSONL files the scripts of benches/solve take (datasets, responses,
statistics): a file that cannot be read, or a line that is not JSON, ends the script with
a one-line error naming the script, the file and the line."""
import json
import os
import sys


def read_jsonl(path, what):
    """The JSON values of `path`'s non-blank lines; `what` names the file in errors."""
    me = os.path.basename(sys.argv[0]) or "python"
    try:
        with open(path, encoding="utf-8") as f:
            rows = []
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        sys.exit(f"{me}: {path}:{n}: not a JSON line ({e.msg})")
            return rows
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"{me}: cannot read the {what} {path}: {e}")
