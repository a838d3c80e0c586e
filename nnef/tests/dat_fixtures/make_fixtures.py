# Writes .dat fixtures with the Khronos reference writer (PyPI nnef 1.0.10, nnef/binary.py)
# and a manifest of the expected header fields and raw item bits.
import json, sys
import numpy as np
# Run from this folder with the Khronos package installed (pip install nnef==1.0.10 numpy):
#   python3 make_fixtures.py
from nnef import binary

cases = [
    ('float32_2x3', np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1, False),
    ('float16_4', np.array([1, -2, 0.5, np.inf], dtype=np.float16), False),
    ('float64_2x2', np.array([[1 / 3, -1e300], [5e-324, -0.0]], dtype=np.float64), False),
    ('int8_5', np.array([-128, -1, 0, 1, 127], dtype=np.int8), False),
    ('uint8_3', np.array([0, 200, 255], dtype=np.uint8), False),
    ('int32_2x1x2', np.array([[[-5, 6]], [[2**31 - 1, -2**31]]], dtype=np.int32), False),
    ('int64_3', np.array([-1, 2**40, 7], dtype=np.int64), False),
    ('uint16_2', np.array([65535, 1], dtype=np.uint16), False),
    ('bool_2x5', np.array([[1, 0, 1, 1, 0], [0, 0, 1, 1, 1]], dtype=np.bool_), False),
    ('quint8_4', np.array([0, 1, 128, 255], dtype=np.uint8), True),
    ('qint8_3', np.array([-127, 0, 127], dtype=np.int8), True),
    ('scalar_float32', np.array(2.5, dtype=np.float32), False),
]
manifest = []
for name, array, quantized in cases:
    with open(name + '.dat', 'wb') as f:
        binary.write_tensor(f, array, quantized=quantized)
    item_type, bits = binary._numpy_dtype_split(array.dtype)
    if quantized:
        item_type = {binary.ItemType.INT: binary.ItemType.QINT, binary.ItemType.UINT: binary.ItemType.QUINT}[item_type]
    flat = array.reshape(-1)
    if bits == 1:
        raw = [int(v) for v in flat]
    else:
        raw = [int(v) for v in flat.view({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits])]
    manifest.append({'file': name + '.dat', 'shape': list(array.shape), 'item_type': item_type,
                     'bits': bits, 'items': raw})
with open('manifest.json', 'w') as f:
    json.dump(manifest, f, indent=1)
