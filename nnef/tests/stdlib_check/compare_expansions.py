"""Checks nnef/src/stdlib.nnef with the Khronos reference parser (PyPI nnef 1.0.10): every
compound fragment, invoked alone and inside each of the 305 real documents, expands (lowered)
to the same primitive operations, attributes, operands and shapes under our text as under the
Khronos standard library. Documented exceptions: add_n (the 1.0.5 text ends the recursion with
0.0) and avg/max_roi_align (the standard's text cannot pass its own validity rule).

Run:  /tmp/nnef-venv/bin/python nnef/tests/stdlib_check/compare_expansions.py
"""
import glob, pathlib, re, sys
import numpy as np
import nnef

ROOT = pathlib.Path(__file__).resolve().parents[2]          # the nnef crate
EXTERNAL = ROOT.parents[1] / 'shared' / 'external' / 'nnef'  # as the Rust tests find it
OURS = (ROOT / 'src' / 'stdlib.nnef').read_text()
COMPOUNDS = []
for m in re.finditer(r'^fragment (\w+)', OURS, re.M):
    rest = OURS[m.end():]
    nxt = re.search(r'[;{]', rest)
    if rest[nxt.start()] == '{':
        COMPOUNDS.append(m.group(1))

# The Khronos Python rule for 'sample' requires index == input, which the standard's own
# max_pool_with_index contradicts (index = argmax_pool(input) has the OUTPUT's shape, §4.3.3);
# use the specification's rule for this comparison.
def _sample_shape(input, index, size, border=None, padding=[], stride=[], dilation=[]):
    out = nnef.shapes.pool_shape(input, size, border, padding, stride, dilation)
    assert index == out, "index %s != output %s" % (index, out)
    return out
nnef.shapes._StandardShapeFuncs['sample'] = _sample_shape

HEAD = "version 1.0;\nextension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;\n"

def canon(graph):
    names = {}
    for i in graph.inputs:
        names[i] = i
    def val(v):
        if isinstance(v, nnef.Identifier):
            return ('id', names.setdefault(str(v), '?' + str(v)))
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, tuple(val(x) for x in v))
        if isinstance(v, np.ndarray):
            return ('nd', v.shape, tuple(v.flatten().tolist()))
        return ('v', repr(v))
    ops = []
    for op in graph.operations:
        ins = tuple((k, val(v)) for k, v in op.inputs.items())
        ats = tuple((k, val(v)) for k, v in op.attribs.items())
        def out(v):
            if isinstance(v, list):
                return [out(x) for x in v]
            names.setdefault(str(v), 't%d' % len(names))
            return names[str(v)]
        outs = tuple((k, str(out(v))) for k, v in op.outputs.items())
        ops.append((op.name, op.dtype, ins, ats, outs))
    shapes = {names.get(k, k): (t.shape, t.dtype) for k, t in graph.tensors.items()}
    return ops, shapes

def both(text, what):
    if what in ('avg_roi_align', 'max_roi_align'):
        # the standard's text pools with size = sampling_rate (2 items) over a rank-4 tensor,
        # which no input satisfies; ours pools with [1,1] + sampling_rate: check ours alone
        b = nnef.parse_string(text, stdlib=OURS, lowered=COMPOUNDS)
        nnef.infer_shapes(b)
        ops = [(op.name, dict(op.attribs)) for op in b.operations]
        print('  ', what, [o[0] for o in ops], b.tensors['y'].shape)
        assert b.tensors['y'].shape == [3, 4, 2, 3], b.tensors['y'].shape
        return True
    a = nnef.parse_string(text, lowered=COMPOUNDS)
    b = nnef.parse_string(text, stdlib=OURS, lowered=COMPOUNDS)
    nnef.infer_shapes(a)
    nnef.infer_shapes(b)
    ca, cb = canon(a), canon(b)
    if what == 'add_n':
        # the standard (1.0.5 text) ends the recursion with the literal 0.0 (a 'copy' of it in
        # the Khronos parser); the Khronos stdlib uses constant(shape = [1], value = [0.0])
        ca = ([o for o in ca[0] if o[0] != 'constant'], ca[1])
        cb = ([o for o in cb[0] if o[0] != 'copy'], cb[1])
        ca = (ca[0], {k: v for k, v in ca[1].items() if k != 't3'})
        cb = (cb[0], {k: v for k, v in cb[1].items() if k != 't3'})
    if ca[0] != cb[0]:
        print('DIFFERENT OPS', what)
        for x, y in zip(ca[0], cb[0]):
            if x != y:
                print('  khronos:', x)
                print('  ours:   ', y)
                break
        if len(ca[0]) != len(cb[0]):
            print('  lengths', len(ca[0]), len(cb[0]))
        return False
    if ca[1] != cb[1]:
        print('DIFFERENT SHAPES', what)
        return False
    return True

def graph(inputs, body, outputs=('y',)):
    decl = ''.join('  %s = external(shape = %s);\n' % (n, s) for n, s in inputs)
    return HEAD + 'graph G(%s) -> (%s)\n{\n%s  %s\n}\n' % (
        ', '.join(n for n, _ in inputs), ', '.join(outputs), decl, body)

X = [('x', '[2,4,8,8]')]
cases = {}
for f in ['sqr', 'sqrt', 'rsqr', 'rsqrt', 'log2', 'relu', 'sigmoid', 'softplus', 'elu', 'selu', 'gelu', 'silu']:
    cases[f] = graph(X, 'y = %s(x);' % f)
cases['elu_alpha'] = graph(X, 'y = elu(x, alpha = 0.5);')
cases['softabs'] = graph(X, 'y = softabs(x, epsilon = 0.01);')
cases['leaky_relu'] = graph(X, 'y = leaky_relu(x, alpha = 0.1);')
cases['prelu'] = graph(X + [('a', '[1,4]')], 'y = prelu(x, a);')
for f in ['min', 'max']:
    cases[f] = graph(X + [('b', '[1,4,1,1]')], 'y = %s(x, b);' % f)
cases['clamp'] = graph(X + [('a', '[1,4]'), ('b', '[1,4]')], 'y = clamp(x, a, b);')
cases['clamp_lit'] = graph(X, 'y = clamp(x, 0.0, 6.0);')
for f in ['nearest_downsample', 'area_downsample', 'nearest_upsample']:
    cases[f] = graph(X, 'y = %s(x, factor = [2,2]);' % f)
cases['mean_reduce'] = graph(X, 'y = mean_reduce(x, axes = [2,3]);')
cases['moments'] = graph(X, 'm, v = moments(x, axes = [0,2,3]);', ('m', 'v'))
cases['softmax'] = graph(X, 'y = softmax(x);')
cases['softmax_axes'] = graph(X, 'y = softmax(x, axes = [2,3]);')
cases['linear'] = graph([('x', '[2,16]'), ('w', '[8,16]'), ('b', '[1,8]')], 'y = linear(x, w, b);')
cases['linear_nobias'] = graph([('x', '[2,16]'), ('w', '[8,16]')], 'y = linear(x, w);')
cases['separable_conv'] = graph(X + [('p', '[4,1,3,3]'), ('q', '[6,4,1,1]'), ('b', '[1,6]')],
    "y = separable_conv(x, p, q, b, border = 'reflect', padding = [(1,1),(0,2)], stride = [2,1], dilation = [1,2]);")
cases['separable_deconv'] = graph(X + [('p', '[6,1,3,3]'), ('q', '[4,6,1,1]'), ('b', '[1,6]')],
    "y = separable_deconv(x, p, q, b, stride = [2,2], padding = [(1,1),(1,1)], output_shape = [2,6,15,15]);")
pool_args = "size = [1,1,3,3], border = 'ignore', padding = [(0,0),(0,0),(1,1),(0,1)], stride = [1,1,2,2], dilation = [1,1,1,1]"
cases['max_pool_with_index'] = graph(X, 'y, i = max_pool_with_index(x, %s);' % pool_args, ('y', 'i'))
for f in ['max_pool', 'avg_pool', 'rms_pool']:
    cases[f] = graph(X, 'y = %s(x, %s);' % (f, pool_args))
    cases[f + '_default'] = graph(X, 'y = %s(x, size = [1,1,2,2], stride = [1,1,2,2]);' % f)
cases['lrn'] = graph(X, 'y = local_response_normalization(x, size = [1,3,1,1], alpha = 0.0001, beta = 0.75, bias = 2.0);')
cases['local_mean_normalization'] = graph(X, 'y = local_mean_normalization(x, size = [1,1,3,3]);')
cases['local_variance_normalization'] = graph(X, 'y = local_variance_normalization(x, size = [1,1,3,3], bias = 1.0, epsilon = 0.001);')
cases['local_contrast_normalization'] = graph(X, 'y = local_contrast_normalization(x, size = [1,1,3,3], bias = 1.0, epsilon = 0.001);')
cases['l1_normalization'] = graph(X, 'y = l1_normalization(x, axes = [1], bias = 1.0, epsilon = 0.001);')
cases['l2_normalization'] = graph(X, 'y = l2_normalization(x, axes = [1], bias = 1.0, epsilon = 0.001);')
cases['batch_normalization'] = graph(X + [('m', '[1,4]'), ('v', '[1,4]'), ('o', '[1,4]'), ('s', '[1,4]')],
    'y = batch_normalization(x, m, v, o, s, epsilon = 0.001);')
roi = [('x', '[2,4,16,16]'), ('r', '[3,4]')]
cases['avg_roi_align'] = HEAD + '''graph G(x, r, i) -> (y) {
  x = external(shape = [2,4,16,16]); r = external(shape = [3,4]); i = external<integer>(shape = [3]);
  y = avg_roi_align(x, r, i, output_size = [2,3], sampling_rate = [2,2], resize_method = 'aligned');
}'''
cases['max_roi_align'] = cases['avg_roi_align'].replace('avg_roi_align', 'max_roi_align')
for signed in ['true', 'false']:
    for sym in ['true', 'false']:
        cases['mmlq_%s_%s' % (signed, sym)] = graph(X + [('lo', '[1,4]'), ('hi', '[1,4]')],
            'y = min_max_linear_quantize(x, lo, hi, bits = 8, signed = %s, symmetric = %s);' % (signed, sym))
        cases['zplq_%s_%s' % (signed, sym)] = HEAD + '''graph G(x, z, s) -> (y) {
  x = external(shape = [2,4,8,8]); z = external<integer>(shape = [1,4]); s = external(shape = [1,4]);
  y = zero_point_linear_quantize(x, z, s, bits = 4, signed = %s, symmetric = %s);
}''' % (signed, sym)
cases['linear_quantize'] = graph(X, 'y = linear_quantize(x, min = -1.0, max = 1.0, bits = 8);')
cases['logarithmic_quantize'] = graph(X, 'y = logarithmic_quantize(x, max = 4.0, bits = 3);')
cases['copy_n'] = graph(X, '[a, b, c] = copy_n(x, times = 3);', ('a', 'b', 'c'))
cases['add_n'] = graph(X + [('b', '[2,4,8,8]'), ('c', '[2,4,8,8]')], 'y = add_n([x, b, c]);')

ok = True
covered = set()
for name, text in cases.items():
    try:
        ok &= both(text, name)
    except Exception as e:
        print('ERROR', name, e)
        ok = False
    for f in COMPOUNDS:
        if re.search(r'\b%s\(' % f, text):
            covered.add(f)
print('compound fragments:', len(COMPOUNDS), 'not covered by a case:', sorted(set(COMPOUNDS) - covered))
files = sorted(glob.glob(str(EXTERNAL / '*' / '*.nnef')))
for path in files:
    text = open(path).read()
    try:
        ok &= both(text, path)
    except Exception as e:
        print('ERROR', path, e)
        ok = False
print('real files:', len(files))
print('ALL SAME' if ok else 'DIFFERENCES FOUND')
sys.exit(0 if ok else 1)
