"""Generates khronos_shape_cases.jsonl: random argument sets for the NNEF primitives whose shape
arithmetic is easy to get wrong, each with what the Khronos reference implementation's shape
function (PyPI `nnef` 1.0.10, `nnef.shapes`) returns for it: a shape, a list of shapes, or an
error. nnef/tests/shapes_khronos.rs replays them against conformance_nnef::shapes::infer.

Run:  python3 -m venv /tmp/nnef-venv && /tmp/nnef-venv/bin/pip install nnef==1.0.10
      /tmp/nnef-venv/bin/python nnef/tests/shapes_fixtures/generate.py > nnef/tests/shapes_fixtures/khronos_shape_cases.jsonl

Arguments stay inside the domain where the Khronos functions and NNEF 1.0.5 chapter 4 state the
same rule (valid border names, kernel sizes >= 1, no repeated axes, conv biases [1,C] or
absent, tile repeats >= 1); outside it the two differ by design (see shapes/mod.rs).
"""
import json
import random
import sys

import nnef.shapes as ks

rng = random.Random(20250531)
cases = []


def record(op, inputs, attribs, func, *args, **kwargs):
    try:
        out = func(*args, **kwargs)
        result = {"result": out if not isinstance(out, tuple) else list(out)}
    except (AssertionError, IndexError, ZeroDivisionError, ValueError, TypeError) as e:
        result = {"error": type(e).__name__ + ": " + str(e)}
    cases.append({"op": op, "inputs": inputs, "attribs": attribs, **result})


def shape(rank, lo=1, hi=9):
    return [rng.randint(lo, hi) for _ in range(rank)]


def maybe(p):
    return rng.random() < p


def window_attribs(n, allow_padding=True):
    padding = [(rng.randint(-2, 3), rng.randint(-2, 3)) for _ in range(n)] if allow_padding and maybe(0.6) else []
    stride = [rng.randint(1, 4) for _ in range(n)] if maybe(0.6) else []
    dilation = [rng.randint(1, 3) for _ in range(n)] if maybe(0.4) else []
    return padding, stride, dilation


def pads_json(padding):
    return [list(p) for p in padding]


# conv / deconv
for _ in range(500):
    transposed = maybe(0.5)
    spatial = rng.randint(0, 3)
    batch = rng.randint(1, 3)
    groups = rng.choice([1, 1, 1, 2, 3, 0])
    channels_in = rng.randint(1, 4) * (groups if groups > 0 else 1)
    out_per_group = rng.randint(1, 3)
    g = groups if groups > 0 else channels_in
    filter_ = None
    if transposed:
        filter_ = [channels_in, out_per_group] + shape(spatial, 1, 4)
    else:
        filter_ = [g * out_per_group, max(1, channels_in // g)] + shape(spatial, 1, 4)
    if maybe(0.1):
        filter_[rng.randrange(2)] += 1  # channel mismatch
    input_ = [batch, channels_in] + shape(spatial, 1, 12)
    channels_out = filter_[1] * g if transposed else filter_[0]
    bias = rng.choice([[], [1, channels_out], [1, channels_out]])
    padding, stride, dilation = window_attribs(spatial)
    if maybe(0.05) and spatial:
        stride = stride[:-1] if stride else [1]  # wrong length
    output_shape = []
    if transposed and maybe(0.4):
        up = ks._upsize_shape(input_[2:], filter_[2:], padding,
                              ks._ensure_rank(stride, spatial), ks._ensure_rank(dilation, spatial))
        output_shape = [batch, channels_out] + [max(1, u + rng.choice([0, 0, 1, -1])) for u in up]
    attribs = {"border": rng.choice(["constant", "replicate", "reflect", "reflect-even"]),
               "padding": pads_json(padding), "stride": stride, "dilation": dilation}
    inputs = {"input": input_, "filter": filter_, "bias": bias}
    if transposed:
        attribs["output_shape"] = output_shape
        attribs["groups"] = groups
        record("deconv", inputs, attribs, ks.deconv_shape, input_, filter_, bias, padding=padding,
               stride=stride, dilation=dilation, groups=groups, output_shape=output_shape)
    else:
        attribs["groups"] = groups
        record("conv", inputs, attribs, ks.conv_shape, input_, filter_, bias, padding=padding,
               stride=stride, dilation=dilation, groups=groups)

# box / debox / argmax_pool
for _ in range(350):
    op = rng.choice(["box", "debox", "argmax_pool"])
    rank = rng.randint(1, 4)
    input_ = shape(rank, 1, 12)
    size = shape(rank, 1, 4)
    padding, stride, dilation = window_attribs(rank)
    attribs = {"size": size, "border": rng.choice(["ignore", "constant", "replicate", "reflect"]),
               "padding": pads_json(padding), "stride": stride, "dilation": dilation}
    if op == "debox":
        output_shape = []
        if maybe(0.4):
            up = ks._upsize_shape(input_, size, padding, ks._ensure_rank(stride, rank), ks._ensure_rank(dilation, rank))
            output_shape = [max(1, u + rng.choice([0, 0, 1, -1])) for u in up]
        attribs["output_shape"] = output_shape
        attribs["normalize"] = maybe(0.5)
        record(op, {"input": input_}, attribs, ks.unpool_shape, input_, size, padding=padding, stride=stride,
               dilation=dilation, output_shape=output_shape)
    else:
        if op == "box":
            attribs["normalize"] = maybe(0.5)
        record(op, {"input": input_}, attribs, ks.pool_shape, input_, size, padding=padding, stride=stride,
               dilation=dilation)

# slice
for _ in range(350):
    rank = rng.randint(1, 4)
    input_ = shape(rank, 1, 10)
    axes = rng.sample(range(rank), rng.randint(0, rank))
    begin = [rng.randint(-12, 12) for _ in axes]
    end = [rng.randint(-12, 12) for _ in axes]
    stride = [] if maybe(0.4) else [rng.choice([-3, -2, -1, 1, 1, 2, 3]) for _ in axes]
    record("slice", {"input": input_}, {"axes": axes, "begin": begin, "end": end, "stride": stride},
           ks.slice_shape, input_, axes, begin, end, stride)

# reshape
for _ in range(300):
    rank = rng.randint(0, 4)
    input_ = shape(rank, 1, 6)
    start = rng.randint(0, rank)
    count = rng.choice([-1, rng.randint(0, rank - start)])
    end = rank if count == -1 else start + count
    target = list(input_[start:end])
    rng.shuffle(target)
    if maybe(0.5) and target:
        # merge two neighbours
        i = rng.randrange(len(target))
        j = (i + 1) % len(target)
        if i != j:
            target[i] *= target[j]
            del target[j]
    shape_ = [(0 if maybe(0.15) else -1 if maybe(0.15) else s) for s in target]
    if maybe(0.15):
        shape_.append(rng.choice([1, 2, -1]))
    record("reshape", {"input": input_}, {"shape": shape_, "axis_start": start, "axis_count": count},
           ks.reshape_shape, input_, shape_, start, count)

# split
for _ in range(120):
    rank = rng.randint(1, 3)
    value = shape(rank, 1, 24)
    axis = rng.randint(0, rank - 1)
    ratios = [rng.randint(1, 4) for _ in range(rng.randint(1, 4))]
    if maybe(0.7):
        value[axis] = sum(ratios) * rng.randint(1, 3)
    record("split", {"value": value}, {"axis": axis, "ratios": ratios}, ks.split_shape, value, axis, ratios)

# matmul
for _ in range(200):
    rank = rng.randint(2, 4)
    batch_a = shape(rank - 2, 1, 3)
    batch_b = [b if maybe(0.7) else rng.choice([1, b + 1]) for b in batch_a]
    m, n, k = rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5)
    ta, tb = maybe(0.5), maybe(0.5)
    a = batch_a + ([k, m] if ta else [m, k])
    kb = k if maybe(0.85) else k + 1
    b = batch_b + ([n, kb] if tb else [kb, n])
    record("matmul", {"A": a, "B": b}, {"transposeA": ta, "transposeB": tb}, ks.matmul_shape, a, b, ta, tb)

# pad, tile, transpose, gather, concat, binary
for _ in range(120):
    rank = rng.randint(1, 4)
    input_ = shape(rank, 1, 6)
    padding = [(rng.randint(-3, 3), rng.randint(-3, 3)) for _ in range(rank if maybe(0.9) else rank + 1)]
    record("pad", {"input": input_}, {"padding": pads_json(padding), "border": "constant", "value": 0.0},
           ks.pad_shape, input_, padding)
for _ in range(60):
    rank = rng.randint(1, 4)
    input_ = shape(rank, 1, 6)
    repeats = [rng.randint(1, 4) for _ in range(rank if maybe(0.9) else rank - 1)]
    record("tile", {"input": input_}, {"repeats": repeats}, ks.tile_shape, input_, repeats)
for _ in range(80):
    rank = rng.randint(1, 5)
    input_ = shape(rank, 1, 6)
    n = rng.randint(0, rank)
    axes = list(range(n))
    rng.shuffle(axes)
    if maybe(0.1) and axes:
        axes[0] = n + 1
    record("transpose", {"input": input_}, {"axes": axes}, ks.transpose_shape, input_, axes)
for _ in range(60):
    rank = rng.randint(1, 4)
    input_ = shape(rank, 1, 6)
    indices = shape(rng.randint(0, 3), 1, 5)
    axis = rng.randint(0, rank if maybe(0.1) else rank - 1)
    record("gather", {"input": input_, "indices": indices}, {"axis": axis}, ks.gather_shape, input_, indices, axis)
for _ in range(60):
    rank = rng.randint(1, 4)
    base = shape(rank, 1, 6)
    axis = rng.randint(0, rank - 1)
    values = []
    for _ in range(rng.randint(1, 4)):
        v = list(base)
        v[axis] = rng.randint(1, 6)
        if maybe(0.1):
            v[rng.randrange(rank)] += 1
        values.append(v)
    record("concat", {"values": values}, {"axis": axis}, ks.concat_shape, values, axis)
for _ in range(120):
    x = shape(rng.randint(0, 4), 1, 3)
    y = [d if maybe(0.6) else rng.choice([1, 2, 3]) for d in x[: rng.randint(0, len(x))]]
    if maybe(0.5):
        x, y = y, x
    record(rng.choice(["add", "mul", "lt", "and"]), {"x": x, "y": y}, {}, ks.binary_shape, x, y)

for case in cases:
    sys.stdout.write(json.dumps(case, separators=(",", ":")) + "\n")
