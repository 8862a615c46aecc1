#!/bin/sh
# Answers with the first rule it sees in the first example pair: a weak, deterministic solver.
python3 -c '
import json,sys
i=json.load(sys.stdin)
a,b=i["inputs"],i["outputs"]
ch=[(x,y) for x,y in zip(a,b) if x!=y]
if not ch: print("```python\n[]\n```")
else:
  x,y=ch[0]; print("```python\n[\"replace(%r, %r)\"]\n```" % (x[:2] if x[:2]!=y[:2] else x, y[:2] if x[:2]!=y[:2] else y))
'
