#!/usr/bin/env bash
# Assembles report.html + report_charts.js + report.js + report.css + a data file into one page,
# exactly as the C++ (`fakeexport report`) does:
#   - each placeholder line of the template is replaced once: /*@FE_STYLE@*/ by report.css,
#     /*@FE_DATA@*/ by the JSON text with every "<" written as "\u003c" (inside a <script>,
#     "</script" would end the element and "<!--<script" would stop the real "</script>" from
#     closing it), /*@FE_SCRIPT@*/ by report_charts.js followed by report.js (in that order,
#     joined by a newline);
#   - substituted text is never searched again for placeholders.
# usage: build_sample.sh [DATA.json [OUT.html]]   (defaults: /tmp/report_sample.json, made by make_sample.js, and /tmp/report_sample.html)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${1:-/tmp/report_sample.json}"
out="${2:-/tmp/report_sample.html}"
[ -f "$data" ] || node "$here/make_sample.js" "$data"
python3 - "$here" "$data" "$out" <<'PY'
import re, sys
here, data, out = sys.argv[1:4]
read = lambda p: open(p, encoding='utf-8').read()
template = read(f'{here}/report.html')
script = read(f'{here}/report_charts.js') + '\n' + read(f'{here}/report.js')
style = read(f'{here}/report.css')
json_text = read(data).strip().replace('<', '\\u003c')
# Guards the C++ relies on too: the pieces cannot close their own element early.
assert not re.search(r'</script|<!--', script, re.I), 'the script must not contain </script or <!--'
assert not re.search(r'</style', style, re.I), 'the stylesheet must not contain </style'
subst = {'/*@FE_DATA@*/': json_text, '/*@FE_SCRIPT@*/': script, '/*@FE_STYLE@*/': style}
for k in subst:
    assert template.count(k) == 1, f'{k} must occur exactly once in report.html'
parts = re.split(r'(/\*@FE_(?:DATA|SCRIPT|STYLE)@\*/)', template)
html = ''.join(subst.get(p, p) for p in parts)
open(out, 'w', encoding='utf-8').write(html)
print(f'{out}: {len(html.encode("utf-8")):,} bytes ({len(json_text.encode("utf-8")):,} of data)')
PY
