"""End-to-end tests of stablehlo_interpreter_worker.py over the protocol (docs/protocol.md).

Run from the repository root with the project's virtualenv:

    .venv/bin/python -m unittest discover -s workers/stablehlo_interpreter -v
"""

import importlib.metadata
import os
import sys
import unittest

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from worker_client import Worker as _Client, binary, decode, stablehlo  # noqa: E402

WORKER = os.path.join(HERE, "stablehlo_interpreter_worker.py")


def Worker():
    """The StableHLO interpreter worker, started."""
    return _Client([sys.executable, WORKER])


def unary(op, t):
    return stablehlo([t], [t], [f'%0 = "stablehlo.{op}"(%arg0) : ({t}) -> {t}', f'"func.return"(%0) : ({t}) -> ()'])


def bits(a):
    """The raw bits of a numpy array, as unsigned integers of its element width."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.itemsize <= 8 else a.view(np.uint64)


class StablehloInterpreterWorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = Worker()

    @classmethod
    def tearDownClass(cls):
        rc = cls.w.close()
        assert rc == 0, rc

    def ok(self, module, inputs, devices=None):
        header, data = self.w.execute(module, inputs, devices=devices)
        self.assertEqual(header["type"], "result", header)
        return [decode(d, f) for d, f in zip(header["outputs"], data)], header["outputs"]

    def error(self, module, inputs, kind):
        header, _ = self.w.execute(module, inputs)
        self.assertEqual((header["type"], header.get("kind")), ("error", kind), header)
        self.assertLessEqual(len(header["message"]), 2000)
        return header["message"]

    def assertBitsEqual(self, got, want):
        self.assertEqual(np.asarray(got).dtype, np.asarray(want).dtype)
        np.testing.assert_array_equal(bits(got), bits(want))

    # --- hello ---------------------------------------------------------------------------------

    def test_hello(self):
        h = self.w.hello
        self.assertEqual(h["type"], "hello")
        self.assertEqual(h["protocol"], 2)
        self.assertEqual(h["name"], "stablehlo-interpreter")
        jaxlib_v = importlib.metadata.version("jaxlib")
        self.assertTrue(h["version"].startswith(f"jaxlib {jaxlib_v} / StableHLO "), h["version"])
        caps = h["capabilities"]
        self.assertEqual(caps["module_formats"], ["stablehlo"])
        self.assertIsNone(caps["opcodes"])
        self.assertEqual(caps["layouts"], "row-major")
        for t in ["pred", "s8", "s64", "u32", "u64", "f16", "bf16", "f32", "f64", "c64", "c128",
                  "f8e4m3fn", "f8e5m2"]:
            self.assertIn(t, caps["element_types"])
        self.assertEqual(caps["subnormals"], "preserve")
        # rng_bit_generator aborts the interpreter ("unsupported at the moment"): no layout.
        self.assertNotIn("rng_bit_layout", caps)
        self.assertEqual(caps["devices"], min(8, len(os.sched_getaffinity(0))))

    def test_declared_subnormal_mode_matches_behaviour(self):
        # 2^-70 * 2^-70 = 2^-140 is an f32 subnormal; 2^-140 * 2^20 reads a subnormal input.
        a = np.array([2.0**-70, 2.0**-140], np.float32)
        b = np.array([2.0**-70, 2.0**20], np.float32)
        (out,), _ = self.ok(binary("multiply", "tensor<2xf32>"), [("f32", a, None), ("f32", b, None)])
        if self.w.hello["capabilities"]["subnormals"] == "flush":
            self.assertTrue(out[0] == 0 or out[1] == 0, out)
        else:
            np.testing.assert_array_equal(out, a * b)
            self.assertNotEqual(out[0], 0)

    # --- layouts and shapes --------------------------------------------------------------------

    def test_add_f32_row_major(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = np.full((2, 3), 0.5, np.float32)
        (out,), descs = self.ok(binary("add", "tensor<2x3xf32>"), [("f32", a, None), ("f32", b, None)])
        self.assertEqual(descs[0], {"element_type": "f32", "dimensions": [2, 3], "minor_to_major": [1, 0]})
        np.testing.assert_array_equal(out, a + b)

    def test_result_reports_execute_micros(self):
        a = np.ones(4, np.float32)
        header, _ = self.w.execute(binary("add", "tensor<4xf32>"), [("f32", a, None), ("f32", a, None)])
        self.assertIsInstance(header["execute_micros"], int)
        self.assertGreaterEqual(header["execute_micros"], 0)

    def test_transposed_layout_input(self):
        # input 0 arrives column-major (minor_to_major [0, 1]); the result must be logical a + b.
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = 100 * np.arange(6, dtype=np.float32).reshape(2, 3)
        (out,), _ = self.ok(binary("add", "tensor<2x3xf32>"), [("f32", a, [0, 1]), ("f32", b, [1, 0])])
        np.testing.assert_array_equal(out, a + b)

    def test_rank3_permuted_layout_through_transpose(self):
        a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
        module = stablehlo(
            ["tensor<2x3x4xi32>"],
            ["tensor<4x2x3xi32>"],
            [
                '%0 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 2, 0, 1>}>'
                " : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>",
                '"func.return"(%0) : (tensor<4x2x3xi32>) -> ()',
            ],
        )
        (out,), _ = self.ok(module, [("s32", a, [1, 2, 0])])
        np.testing.assert_array_equal(out, np.transpose(a, (2, 0, 1)))

    def test_multiple_results_are_returned_in_order(self):
        t = "tensor<3xi32>"
        f = "tensor<3xf32>"
        module = stablehlo(
            [t, t, f],
            [t, f, t],
            [
                f'%0 = "stablehlo.subtract"(%arg0, %arg1) : ({t}, {t}) -> {t}',
                f'"func.return"(%arg1, %arg2, %0) : ({t}, {f}, {t}) -> ()',
            ],
        )
        a = np.array([10, 20, 30], np.int32)
        b = np.array([1, 2, 3], np.int32)
        c = np.array([0.5, -1.5, 2.25], np.float32)
        (first, second, third), descs = self.ok(module, [("s32", a, None), ("s32", b, None), ("f32", c, None)])
        self.assertEqual([d["element_type"] for d in descs], ["s32", "f32", "s32"])
        np.testing.assert_array_equal(first, b)
        np.testing.assert_array_equal(second, c)
        np.testing.assert_array_equal(third, a - b)

    def test_scalar_and_zero_sized(self):
        module = stablehlo(
            ["tensor<f32>", "tensor<0x3xf32>", "tensor<0xcomplex<f32>>"],
            ["tensor<f32>", "tensor<0x3xf32>", "tensor<0xcomplex<f32>>"],
            [
                '%0 = "stablehlo.negate"(%arg0) : (tensor<f32>) -> tensor<f32>',
                '%1 = "stablehlo.add"(%arg1, %arg1) : (tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<0x3xf32>',
                '"func.return"(%0, %1, %arg2) : (tensor<f32>, tensor<0x3xf32>, tensor<0xcomplex<f32>>) -> ()',
            ],
        )
        (s, z, c), descs = self.ok(module, [("f32", np.float32(7), None), ("f32", np.zeros((0, 3), np.float32), [0, 1]),
                                            ("c64", np.zeros(0, np.complex64), None)])
        self.assertEqual(descs[0], {"element_type": "f32", "dimensions": [], "minor_to_major": []})
        self.assertEqual(descs[1]["dimensions"], [0, 3])
        self.assertEqual(descs[2], {"element_type": "c64", "dimensions": [0], "minor_to_major": [0]})
        self.assertEqual(float(s), -7.0)
        self.assertEqual(z.shape, (0, 3))
        self.assertEqual(c.shape, (0,))

    def test_splat_results_have_their_full_shape(self):
        module = stablehlo(
            [],
            ["tensor<2x3xi1>", "tensor<2x2xbf16>", "tensor<3xcomplex<f64>>"],
            [
                '%0 = "stablehlo.constant"() <{value = dense<false> : tensor<2x3xi1>}> : () -> tensor<2x3xi1>',
                '%1 = "stablehlo.constant"() <{value = dense<1.5> : tensor<2x2xbf16>}> : () -> tensor<2x2xbf16>',
                '%2 = "stablehlo.constant"() <{value = dense<(1.0, -2.0)> : tensor<3xcomplex<f64>>}> : () -> tensor<3xcomplex<f64>>',
                '"func.return"(%0, %1, %2) : (tensor<2x3xi1>, tensor<2x2xbf16>, tensor<3xcomplex<f64>>) -> ()',
            ],
        )
        (p, h, c), _ = self.ok(module, [])
        np.testing.assert_array_equal(p, np.zeros((2, 3), bool))
        self.assertBitsEqual(h, np.full((2, 2), 1.5, ml_dtypes.bfloat16))
        np.testing.assert_array_equal(c, np.full(3, 1 - 2j, np.complex128))

    # --- element types, bit for bit ------------------------------------------------------------

    def test_bf16(self):
        a = np.array([1.0, 2.5, -3.0, 256.0], ml_dtypes.bfloat16)
        b = np.array([1.0, 0.5, 0.0078125, 1.0], ml_dtypes.bfloat16)
        (out,), descs = self.ok(binary("add", "tensor<4xbf16>"), [("bf16", a, None), ("bf16", b, None)])
        self.assertEqual(descs[0]["element_type"], "bf16")
        # 256 + 1 rounds to 256 in bf16 (8 significand bits); -3 + 2^-7 rounds to -3 (ties-to-even)
        self.assertBitsEqual(out, np.array([2.0, 3.0, -3.0, 256.0], ml_dtypes.bfloat16))

    def test_f16(self):
        a = np.array([1.0, 2048.0, 65504.0, 2.0**-24], np.float16)
        b = np.array([2.0**-11, 1.0, 65504.0, 2.0**-24], np.float16)
        (out,), descs = self.ok(binary("add", "tensor<4xf16>"), [("f16", a, None), ("f16", b, None)])
        self.assertEqual(descs[0]["element_type"], "f16")
        # 1 + 2^-11 ties to even (1); 2048 + 1 ties to even (2048); overflow to inf; subnormal sum
        self.assertBitsEqual(out, np.array([1.0, 2048.0, np.inf, 2.0**-23], np.float16))

    def test_c64_interleaved(self):
        a = np.array([1 + 2j, -3 + 0.5j], np.complex64)
        b = np.array([3 - 1j, 2 + 2j], np.complex64)
        t = "tensor<2xcomplex<f32>>"
        (out,), descs = self.ok(binary("multiply", t), [("c64", a, None), ("c64", b, None)])
        self.assertEqual(descs[0]["element_type"], "c64")
        self.assertBitsEqual(out, a * b)
        (out,), _ = self.ok(binary("add", t), [("c64", a, None), ("c64", b, None)])
        self.assertBitsEqual(out, a + b)

    def test_c128(self):
        a = np.array([1 + 2.0**-40 * 1j, -3e200 + 0.5j], np.complex128)
        b = np.array([3 - 1j, -3e200 - 2j], np.complex128)
        (out,), descs = self.ok(binary("add", "tensor<2xcomplex<f64>>"), [("c128", a, None), ("c128", b, None)])
        self.assertEqual(descs[0]["element_type"], "c128")
        self.assertBitsEqual(out, a + b)

    def test_complex_nan_payloads_keep_re_im_order(self):
        re = np.array([0x7FC00123, 0x3F800000], np.uint32)  # a NaN with a payload, 1.0
        im = np.array([0x40000000, 0xFFC00456], np.uint32)  # 2.0, a negative NaN with a payload
        pair = np.stack([re, im], axis=-1).copy().view(np.complex64).reshape(2)
        (out,), _ = self.ok(unary("negate", "tensor<2xcomplex<f32>>"), [("c64", pair, None)])
        got = np.ascontiguousarray(out).view(np.uint32).reshape(2, 2)
        np.testing.assert_array_equal(got[:, 0], re ^ 0x80000000)
        np.testing.assert_array_equal(got[:, 1], im ^ 0x80000000)

    def test_nan_payloads_survive_negate(self):
        x = np.array([0x7FC00123, 0xFF800001, 0x00000001, 0x7F800000], np.uint32).view(np.float32)
        (out,), _ = self.ok(unary("negate", "tensor<4xf32>"), [("f32", x, None)])
        np.testing.assert_array_equal(out.view(np.uint32), x.view(np.uint32) ^ 0x80000000)
        y = np.array([0x7FF8000000000ABC, 0x7FF0000000000001], np.uint64).view(np.float64)
        (out,), _ = self.ok(unary("negate", "tensor<2xf64>"), [("f64", y, None)])
        np.testing.assert_array_equal(out.view(np.uint64), y.view(np.uint64) ^ (1 << 63))
        z = np.array([0x7FC1, 0xFF81], np.uint16).view(ml_dtypes.bfloat16)
        (out,), _ = self.ok(unary("negate", "tensor<2xbf16>"), [("bf16", z, None)])
        np.testing.assert_array_equal(np.asarray(out).view(np.uint16), z.view(np.uint16) ^ 0x8000)

    def test_f8e4m3fn(self):
        a = np.array([1.0, 448.0, -2.0, 0.0], ml_dtypes.float8_e4m3fn)
        b = np.array([0.125, 1.0, 0.5, -0.0], ml_dtypes.float8_e4m3fn)
        (out,), descs = self.ok(binary("multiply", "tensor<4xf8E4M3FN>"), [("f8e4m3fn", a, None), ("f8e4m3fn", b, None)])
        self.assertEqual(descs[0]["element_type"], "f8e4m3fn")
        self.assertBitsEqual(out, np.array([0.125, 448.0, -1.0, -0.0], ml_dtypes.float8_e4m3fn))
        (out,), _ = self.ok(binary("add", "tensor<4xf8E4M3FN>"), [("f8e4m3fn", a, None), ("f8e4m3fn", b, None)])
        # 448 + 1 rounds to 448 (3 mantissa bits); 0 + -0 is +0
        self.assertBitsEqual(out, np.array([1.125, 448.0, -1.5, 0.0], ml_dtypes.float8_e4m3fn))

    def test_pred(self):
        a = np.array([True, False, True, False])
        b = np.array([True, True, False, False])
        (out,), descs = self.ok(binary("and", "tensor<4xi1>"), [("pred", a, None), ("pred", b, None)])
        self.assertEqual(descs[0]["element_type"], "pred")
        np.testing.assert_array_equal(out, a & b)

    def test_compare_gives_pred_bytes_0_or_1(self):
        t = "tensor<3xf32>"
        module = stablehlo(
            [t, t],
            ["tensor<3xi1>"],
            [
                f'%0 = "stablehlo.compare"(%arg0, %arg1) <{{comparison_direction = #stablehlo<comparison_direction LT>}}>'
                f" : ({t}, {t}) -> tensor<3xi1>",
                '"func.return"(%0) : (tensor<3xi1>) -> ()',
            ],
        )
        a = np.array([1, 2, np.nan], np.float32)
        b = np.array([2, 2, 2], np.float32)
        header, data = self.w.execute(module, [("f32", a, None), ("f32", b, None)])
        self.assertEqual(header["outputs"][0]["element_type"], "pred")
        self.assertEqual(data[0], b"\x01\x00\x00")

    def test_u32_wraps(self):
        a = np.array([2**32 - 1, 7], np.uint32)
        b = np.array([2, 2**31], np.uint32)
        (out,), descs = self.ok(binary("add", "tensor<2xui32>"), [("u32", a, None), ("u32", b, None)])
        self.assertEqual(descs[0]["element_type"], "u32")
        np.testing.assert_array_equal(out, np.array([1, 2**31 + 7], np.uint32))

    def test_64_bit_types_are_not_narrowed(self):
        a = np.array([2**40 + 1, -(2**62)], np.int64)
        (out,), descs = self.ok(binary("add", "tensor<2xi64>"), [("s64", a, None), ("s64", a, None)])
        self.assertEqual(descs[0]["element_type"], "s64")
        np.testing.assert_array_equal(out, a + a)
        x = np.array([1 + 2.0**-40], np.float64)
        (out,), descs = self.ok(binary("multiply", "tensor<1xf64>"), [("f64", x, None), ("f64", x, None)])
        self.assertEqual(descs[0]["element_type"], "f64")
        self.assertBitsEqual(out, x * x)
        u = np.array([2**64 - 1], np.uint64)
        (out,), _ = self.ok(binary("maximum", "tensor<1xui64>"), [("u64", u, None), ("u64", u, None)])
        np.testing.assert_array_equal(out, u)

    # --- tokens, tuples, devices ---------------------------------------------------------------

    def test_a_token_result_has_no_output(self):
        t = "tensor<2xf32>"
        module = {"stablehlo": (
            "module {\n  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, !stablehlo.token) {\n"
            '    %0 = "stablehlo.after_all"() : () -> !stablehlo.token\n'
            '    %1 = "stablehlo.after_all"(%0, %0) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token\n'
            f'    "func.return"(%arg0, %1) : ({t}, !stablehlo.token) -> ()\n'
            "  }\n}\n")}
        a = np.array([1.5, -2.0], np.float32)
        header, data = self.w.execute(module, [("f32", a, None)])
        self.assertEqual(header["type"], "result", header)
        self.assertEqual(len(header["outputs"]), 1, header)
        np.testing.assert_array_equal(decode(header["outputs"][0], data[0]), a)

    def test_tuple_typed_entry_result_is_invalid_with_hint(self):
        t = "tensor<2xf32>"
        tt = f"tuple<{t}, {t}>"
        module = stablehlo([t], [tt], [f'%0 = "stablehlo.tuple"(%arg0, %arg0) : ({t}, {t}) -> {tt}',
                                       f'"func.return"(%0) : ({tt}) -> ()'])
        message = self.error(module, [("f32", np.zeros(2, np.float32), None)], "invalid")
        self.assertIn("leaves as the results of @main", message)

    def test_replica_and_partition_ids_on_a_grid(self):
        module = {"stablehlo": """module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32>, tensor<ui32>, tensor<ui32>) {
    %0 = "stablehlo.replica_id"() : () -> tensor<ui32>
    %1 = "stablehlo.partition_id"() : () -> tensor<ui32>
    "func.return"(%arg0, %0, %1) : (tensor<f32>, tensor<ui32>, tensor<ui32>) -> ()
  }
}"""}
        inputs = [("f32", np.float32(1.5), None), ("f32", np.float32(-2.0), None)]
        outs, _ = self.ok(module, inputs, devices={"replicas": 1, "partitions": 2})
        self.assertEqual([float(outs[0]), int(outs[1]), int(outs[2])], [1.5, 0, 0])
        self.assertEqual([float(outs[3]), int(outs[4]), int(outs[5])], [-2.0, 0, 1])
        # one device: the same module runs on a 1x1 grid
        outs, _ = self.ok(module, inputs[:1])
        self.assertEqual([float(outs[0]), int(outs[1]), int(outs[2])], [1.5, 0, 0])

    def test_replicated_all_reduce(self):
        if self.w.hello["capabilities"]["devices"] < 2:
            self.skipTest("one CPU: the interpreter's grid has one thread")
        module = {"stablehlo": """module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<2xbf16>) -> tensor<2xbf16> {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %s = "stablehlo.add"(%a, %b) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      "stablehlo.return"(%s) : (tensor<bf16>) -> ()
    }) : (tensor<2xbf16>) -> tensor<2xbf16>
    "func.return"(%0) : (tensor<2xbf16>) -> ()
  }
}"""}
        a = np.array([1.0, 2.5], ml_dtypes.bfloat16)
        b = np.array([3.0, -0.5], ml_dtypes.bfloat16)
        outs, _ = self.ok(module, [("bf16", a, None), ("bf16", b, None)], devices={"replicas": 2, "partitions": 1})
        self.assertEqual(len(outs), 2)
        for o in outs:
            self.assertBitsEqual(o, np.array([4.0, 2.0], ml_dtypes.bfloat16))

    def test_more_devices_than_declared_are_unsupported(self):
        n = self.w.hello["capabilities"]["devices"] + 1
        header, _ = self.w.execute(binary("add", "tensor<f32>"), [("f32", np.float32(1), None)] * (2 * n),
                                   devices={"replicas": n, "partitions": 1})
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)

    # --- errors ------------------------------------------------------------------------------------

    def test_unparseable_text_is_invalid(self):
        message = self.error({"stablehlo": "module { this is not mlir }"}, [], "invalid")
        self.assertIn("this", message)

    def test_verifier_error_is_invalid_with_message(self):
        module = stablehlo(
            ["tensor<2xf32>"],
            ["tensor<3xf32>"],
            [
                '%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>',
                '"func.return"(%0) : (tensor<3xf32>) -> ()',
            ],
        )
        message = self.error(module, [("f32", np.zeros(2, np.float32), None)], "invalid")
        self.assertIn("stablehlo.add", message)

    def test_module_without_stablehlo_is_unsupported(self):
        hlo = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n"
        self.error({"hlo": hlo}, [("f32", np.zeros(2, np.float32), None)], "unsupported")

    def test_input_type_mismatch_is_invalid(self):
        a = np.zeros((2, 3), np.int32)
        message = self.error(binary("add", "tensor<2x3xf32>"), [("s32", a, None), ("s32", a, None)], "invalid")
        self.assertIn("parameter 0 is f32[2, 3]", message)

    def test_input_shape_mismatch_is_invalid(self):
        a = np.zeros(3, np.float32)
        self.error(binary("add", "tensor<2xf32>"), [("f32", a, None), ("f32", a, None)], "invalid")

    def test_input_count_mismatch_is_invalid(self):
        self.error(binary("add", "tensor<2xf32>"), [("f32", np.zeros(2, np.float32), None)], "invalid")

    def test_bad_data_frame_length_is_invalid(self):
        desc = {"element_type": "f32", "dimensions": [2], "minor_to_major": [0]}
        self.w.send(
            {"type": "execute", "id": 900, "module": binary("add", "tensor<2xf32>"), "inputs": [desc, desc]},
            [b"\0" * 8, b"\0" * 7],
        )
        header, _ = self.w.read_message()
        self.assertEqual((header["id"], header["type"], header["kind"]), (900, "error", "invalid"), header)
        self.assertIn("input 1", header["message"])

    def test_infeed_and_outfeed_are_unsupported_without_blocking(self):
        t = "tensor<2xf32>"
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1:2 = "stablehlo.infeed"(%0) <{{infeed_config = ""}}> : (!stablehlo.token) -> ({t}, !stablehlo.token)',
            f'"func.return"(%1#0) : ({t}) -> ()',
        ]
        message = self.error(stablehlo([], [t], body), [("f32", np.zeros(2, np.float32), None)], "unsupported")
        self.assertIn("infeed", message)
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1 = "stablehlo.outfeed"(%arg0, %0) <{{outfeed_config = ""}}> : ({t}, !stablehlo.token) -> !stablehlo.token',
            f'"func.return"(%arg0) : ({t}) -> ()',
        ]
        message = self.error(stablehlo([t], [t], body), [("f32", np.zeros(2, np.float32), None)], "unsupported")
        self.assertIn("outfeed", message)

    def test_send_and_recv_are_unsupported_without_blocking(self):
        # Two replicas swapping values (spec/ops/host_transfer.yaml, send): the interpreter's
        # channels have no pairs, so both devices' sends would wait for a recv and time out.
        t = "tensor<2xf32>"
        pairs = '{mhlo.frontend_attributes = {_xla_send_recv_source_target_pairs = "{{0,1},{1,0}}"}}'
        channel = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false"
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1 = "stablehlo.send"(%arg0, %0) <{{{channel}}}> {pairs} : ({t}, !stablehlo.token) -> !stablehlo.token',
            f'%2:2 = "stablehlo.recv"(%0) <{{{channel}}}> {pairs} : (!stablehlo.token) -> ({t}, !stablehlo.token)',
            f'"func.return"(%2#0) : ({t}) -> ()',
        ]
        x = ("f32", np.zeros(2, np.float32), None)
        header, _ = self.w.execute(stablehlo([t], [t], body), [x, x], devices={"replicas": 2, "partitions": 1})
        self.assertEqual((header["type"], header.get("kind")), ("error", "unsupported"), header)
        self.assertIn("stablehlo.send", header["message"])
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1:2 = "stablehlo.recv"(%0) <{{{channel}}}> : (!stablehlo.token) -> ({t}, !stablehlo.token)',
            f'"func.return"(%1#0) : ({t}) -> ()',
        ]
        message = self.error(stablehlo([], [t], body), [], "unsupported")
        self.assertIn("stablehlo.recv", message)

    def test_an_operation_the_interpreter_lacks_is_unsupported_and_the_worker_survives(self):
        # The interpreter ends its process (LLVM ERROR ... unsupported): the sandbox dies, the
        # worker answers, and the next request runs in a new sandbox.
        module = stablehlo(
            ["tensor<2xui64>"],
            ["tensor<2xui64>", "tensor<4xui32>"],
            [
                '%0:2 = "stablehlo.rng_bit_generator"(%arg0) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}>'
                " : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)",
                '"func.return"(%0#0, %0#1) : (tensor<2xui64>, tensor<4xui32>) -> ()',
            ],
        )
        message = self.error(module, [("u64", np.array([1, 2], np.uint64), None)], "unsupported")
        self.assertIn("rng_bit_generator", message)
        t = "tensor<2xf32>"
        chlo = stablehlo([t], [t], [f'%0 = "chlo.lgamma"(%arg0) : ({t}) -> {t}', f'"func.return"(%0) : ({t}) -> ()'])
        message = self.error(chlo, [("f32", np.ones(2, np.float32), None)], "unsupported")
        self.assertIn("chlo.lgamma", message)
        (out,), _ = self.ok(binary("add", t), [("f32", np.ones(2, np.float32), None)] * 2)
        np.testing.assert_array_equal(out, [2.0, 2.0])

    def test_an_interpreter_crash_is_a_failure_and_the_worker_survives(self):
        # The interpreter divides integers with the host's instruction: x / 0 is a SIGFPE.
        a = np.array([1, 2], np.int32)
        b = np.array([0, 1], np.int32)
        message = self.error(binary("divide", "tensor<2xi32>"), [("s32", a, None), ("s32", b, None)], "failure")
        self.assertIn("SIGFPE", message)
        (out,), _ = self.ok(binary("add", "tensor<2xi32>"), [("s32", a, None), ("s32", b, None)])
        np.testing.assert_array_equal(out, a + b)

    def test_same_module_twice_uses_the_cache_and_stays_correct(self):
        m = binary("subtract", "tensor<2xf32>")
        for k in range(3):
            a = np.array([k, 2 * k], np.float32)
            (out,), _ = self.ok(m, [("f32", a, None), ("f32", np.ones(2, np.float32), None)])
            np.testing.assert_array_equal(out, a - 1)
        # a cached parse error stays an error, and the worker still runs the good module
        for _ in range(2):
            self.error({"stablehlo": "module { broken"}, [], "invalid")
        (out,), _ = self.ok(m, [("f32", np.ones(2, np.float32), None)] * 2)
        np.testing.assert_array_equal(out, [0.0, 0.0])


class DeadlineTest(unittest.TestCase):
    def test_a_request_past_the_deadline_is_a_failure_and_the_worker_goes_on(self):
        w = _Client([sys.executable, WORKER, "--deadline", "1"])
        try:
            t = "tensor<i64>"
            # A loop of 10^12 trips: the interpreter would run for hours.
            loop = stablehlo([t], [t], [
                '%0 = "stablehlo.while"(%arg0) ({',
                f'^bb0(%i: {t}):',
                f'  %big = "stablehlo.constant"() {{value = dense<1000000000000> : {t}}} : () -> {t}',
                f'  %c = "stablehlo.compare"(%i, %big) {{comparison_direction = #stablehlo<comparison_direction LT>}} : ({t}, {t}) -> tensor<i1>',
                '  "stablehlo.return"(%c) : (tensor<i1>) -> ()',
                '}, {',
                f'^bb0(%i: {t}):',
                f'  %one = "stablehlo.constant"() {{value = dense<1> : {t}}} : () -> {t}',
                f'  %n = "stablehlo.add"(%i, %one) : ({t}, {t}) -> {t}',
                f'  "stablehlo.return"(%n) : ({t}) -> ()',
                f'}}) : ({t}) -> {t}',
                f'"func.return"(%0) : ({t}) -> ()',
            ])
            header, _ = w.execute(loop, [("s64", np.int64(0), None)])
            self.assertEqual((header["type"], header.get("kind")), ("error", "failure"), header)
            self.assertIn("did not finish within 1 s", header["message"])
            a = np.array([1, 2], np.int32)
            header, data = w.execute(binary("add", "tensor<2xi32>"), [("s32", a, None)] * 2)
            self.assertEqual(header["type"], "result", header)
            np.testing.assert_array_equal(decode(header["outputs"][0], data[0]), a + a)
        finally:
            self.assertEqual(w.close(), 0)


class LifecycleTest(unittest.TestCase):
    def test_shutdown_exits_0(self):
        w = Worker()
        self.assertEqual(w.close(), 0)

    def test_eof_exits_0_and_stdout_has_only_frames(self):
        w = Worker()
        w.proc.stdin.close()
        rest = w.proc.stdout.read()
        self.assertEqual(rest, b"")
        self.assertEqual(w.proc.wait(timeout=30), 0)
        w.proc.stdout.close()
        w.proc.stderr.close()

    def test_unknown_request_type_exits_nonzero(self):
        w = Worker()
        w.send({"type": "frobnicate", "id": 1})
        self.assertEqual(w.proc.stdout.read(), b"")
        self.assertNotEqual(w.proc.wait(timeout=30), 0)
        self.assertIn(b"frobnicate", w.proc.stderr.read())
        w.proc.stdout.close()
        w.proc.stdin.close()
        w.proc.stderr.close()


if __name__ == "__main__":
    unittest.main()
