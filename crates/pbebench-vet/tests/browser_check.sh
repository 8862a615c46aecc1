#!/usr/bin/env bash
# Loads a pbebench HTML report in headless Chromium and checks that it
#   1. references nothing outside the file (no network, no CDN, no other file),
#   2. loads with no console message (the page has no script, so any is an error),
#   3. shows the leaderboard (a table with id="leaderboard" and at least one row),
#   4. renders a screenshot that is not blank (many colours, enough ink),
#   5. fits a 1400-pixel window: nothing is wider than the page (measured in a copy of the
#      page with a one-line script added; the page itself has none).
#
# Usage: crates/pbebench-vet/tests/browser_check.sh [REPORT_DIR]
#   REPORT_DIR holds index.html. Without it, `pbebench demo` writes one into a temporary
#   directory; the binary is $PBEBENCH, else target*/release/pbebench, else built with
#   `cargo build --release -p pbebench-cli` (into $CARGO_TARGET_DIR if set).
# Environment: CHROMIUM (browser binary), KEEP=1 (keep the work directory),
#   SELF_TEST=1 (also check that a page with a script error is caught).
# Installs Debian's chromium with apt-get when it is missing and we are root.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
work="$(mktemp -d)"
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
fail() { echo "browser check FAILED: $*" >&2; exit 1; }

browser="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [[ -z "$browser" ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    echo "installing chromium (Debian package) …"
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null
    browser="$(command -v chromium)"
  else
    fail "no chromium found; install it (apt-get install -y chromium) or set CHROMIUM"
  fi
fi

if [[ $# -ge 1 ]]; then
  report="$1"
else
  bin="${PBEBENCH:-}"
  if [[ -z "$bin" ]]; then
    for t in "${CARGO_TARGET_DIR:-}" "$repo/target-vet" "$repo/target"; do
      if [[ -n "$t" && -x "$t/release/pbebench" ]]; then bin="$t/release/pbebench"; break; fi
    done
  fi
  if [[ -z "$bin" ]]; then
    (cd "$repo" && cargo build --release -q -p pbebench-cli)
    bin="${CARGO_TARGET_DIR:-$repo/target}/release/pbebench"
  fi
  echo "running $bin demo …"
  "$bin" demo --out "$work/demo" --size 64 >"$work/demo.log" 2>&1 || { cat "$work/demo.log"; fail "pbebench demo failed"; }
  report="$work/demo/report"
fi
index="$report/index.html"
[[ -f "$index" ]] || fail "$index not found"
url="file://$(cd "$report" && pwd)/index.html"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --disable-extensions --hide-scrollbars)

# 1. Self-contained: no URL other than the SVG namespace, no src/href, no @import.
refs="$(grep -oE '(https?|ftp)://[^" )<]+' "$index" | grep -v '^http://www.w3.org/2000/svg$' || true)"
[[ -z "$refs" ]] || fail "index.html references outside resources: $refs"
if grep -qiE '<(script|link|img|iframe)[ >]|[^a-z-](src|href)=|@import' "$index"; then
  fail "index.html loads something (script, link, img, iframe, src/href or @import)"
fi

check_page() { # url dom_out log_out
  timeout 120 "$browser" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" \
    --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom "$1" >"$2" 2>"$3" || true
}

# 2. + 3. Console and DOM.
check_page "$url" "$work/dom.html" "$work/console.log"
console_lines() { grep -E 'CONSOLE|Uncaught|Failed to load resource' "$1" || true; }
errors="$(console_lines "$work/console.log")"
[[ -z "$errors" ]] || fail "console messages while loading the report:
$errors"
grep -q 'id="leaderboard"' "$work/dom.html" || fail "the leaderboard table is not in the DOM (see $work/dom.html)"
rows="$(python3 - "$work/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<table id="leaderboard">(.*?)</table>', dom, re.S)
print(len(re.findall(r"<tr><td", m.group(1))) if m else 0)
PY
)"
[[ "$rows" -ge 1 ]] || fail "the leaderboard has no rows"
svgs="$(grep -o '<svg ' "$work/dom.html" | wc -l)"
[[ "$svgs" -ge 3 ]] || fail "only $svgs figures in the DOM"

# 4. Screenshot, decoded with the standard library only.
# Chromium itself sometimes crashes on this kind of VM before drawing anything ("Zygote
# could not fork", a segfault; seen once in several dozen runs): a run that writes no file
# is tried again, twice at most, its log shown. The page is the same each time; what is
# checked of the screenshot is not relaxed.
for attempt in 1 2 3; do
  (cd "$work" && timeout 120 "$browser" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" \
    --window-size=1280,2000 --virtual-time-budget=3000 --screenshot="$work/shot.png" "$url" \
    >"$work/shot.log" 2>&1) || true
  [[ -s "$work/shot.png" ]] && break
  echo "browser check: Chromium wrote no screenshot (attempt $attempt of 3); its log:" >&2
  cat "$work/shot.log" >&2
done
[[ -s "$work/shot.png" ]] || fail "no screenshot was written"
python3 - "$work/shot.png" <<'PY' || fail "the screenshot looks blank"
import struct, sys, zlib

def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, head = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = head
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {head}"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows

w, h, bpp, rows = decode(sys.argv[1])
colours, ink = set(), 0
for row in rows[::2]:
    for x in range(0, w * bpp, bpp * 2):
        px = row[x:x + 3]
        colours.add(px)
        if px[0] < 235 or px[1] < 235 or px[2] < 235:
            ink += 1
sampled = (h // 2 + h % 2) * ((w + 1) // 2)
share = ink / sampled
print(f"screenshot {w}x{h}: {len(colours)} distinct colours, {share:.1%} non-white")
sys.exit(0 if len(colours) > 64 and share > 0.03 else 1)
PY

# 5. Width: the widest element at a 1400-pixel window, read back through the title.
measure="$work/measure.html"
python3 - "$index" "$measure" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
probe = ("<script>let w = 0; for (const e of document.querySelectorAll('*')) "
         "{ w = Math.max(w, e.getBoundingClientRect().right); } "
         "document.title = 'width=' + Math.max(w, document.documentElement.scrollWidth);</script>")
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", probe + "</body>"))
PY
(cd "$work" && timeout 120 "$browser" "${flags[@]}" --user-data-dir="$(mktemp -d -p "$work")" \
  --window-size=1400,900 --virtual-time-budget=3000 --dump-dom "file://$measure" \
  >"$work/measure.dom" 2>/dev/null) || true
width="$(grep -oE '<title>width=[0-9.]+' "$work/measure.dom" | grep -oE '[0-9.]+$' || true)"
[[ -n "$width" ]] || fail "could not measure the page's width (see $work/measure.dom)"
python3 -c "import sys; sys.exit(0 if float('$width') <= 1400 else 1)" \
  || fail "the page is $width pixels wide at a 1400-pixel window (at most 1400)"

if [[ "${SELF_TEST:-0}" == 1 ]]; then
  mkdir -p "$work/broken"
  printf '<!DOCTYPE html><html><body><table id="leaderboard"></table><script>undefinedFunction();</script></body></html>\n' >"$work/broken/index.html"
  check_page "file://$work/broken/index.html" "$work/broken.dom" "$work/broken.log"
  [[ -n "$(console_lines "$work/broken.log")" ]] || fail "self-test: a script error was not seen in the console log"
  echo "self-test: a page with a script error is caught"
fi
echo "browser check passed: $url (no outside references, no console messages, leaderboard with $rows row(s), $svgs figures, $width pixels wide at a 1400-pixel window)"
