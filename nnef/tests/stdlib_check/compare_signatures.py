"""Checks that nnef/src/stdlib.nnef declares the same fragments as the Khronos standard library
(PyPI nnef 1.0.10, nnef/cpp/include/nnef/comp/stdlib_source.h), with the same signatures
(whitespace and comments aside) and the same primitive/compound split.

Run:  /tmp/nnef-venv/bin/python nnef/tests/stdlib_check/compare_signatures.py
"""
import pathlib, re, sys
import nnef
HEADER = pathlib.Path(nnef.__file__).parent / 'cpp' / 'include' / 'nnef' / 'comp' / 'stdlib_source.h'
src = HEADER.read_text()
khronos = ''.join(re.findall(r'R"STDLIB\((.*?)\)STDLIB"', src, re.S))
ours = (pathlib.Path(__file__).resolve().parents[2] / 'src' / 'stdlib.nnef').read_text()

def sigs(text):
    text = re.sub(r'#[^\n]*', '', text)
    out = {}
    for m in re.finditer(r'fragment\s+(\w+)', text):
        rest = text[m.start():]
        end = min(i for i in (rest.find(';'), rest.find('{')) if i >= 0)
        head = re.sub(r'\s+', '', rest[:end])
        body = rest[end] == '{'
        out[m.group(1)] = (head, body)
    return out
a, b = sigs(khronos), sigs(ours)
ok = True
for name in sorted(set(a) | set(b)):
    if a.get(name) != b.get(name):
        ok = False
        print(name, '\n  khronos:', a.get(name), '\n  ours:   ', b.get(name))
print(len(a), 'khronos fragments,', len(b), 'ours;', 'SAME SIGNATURES' if ok else 'DIFFER')
sys.exit(0 if ok else 1)
