"""End-to-end tests of xla_worker.py over the protocol (docs/protocol.md).

Run from the repository root with the project's virtualenv:

    .venv/bin/python -m unittest discover -s workers/xla -v
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

WORKER = os.path.join(HERE, "xla_worker.py")


def Worker():
    """The XLA worker, started."""
    return _Client([sys.executable, WORKER])



class XlaWorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = Worker()

    @classmethod
    def tearDownClass(cls):
        rc = cls.w.close()
        assert rc == 0, rc

    def ok(self, module, inputs):
        header, data = self.w.execute(module, inputs)
        self.assertEqual(header["type"], "result", header)
        return [decode(d, f) for d, f in zip(header["outputs"], data)], header["outputs"]

    def test_hello(self):
        h = self.w.hello
        self.assertEqual(h["type"], "hello")
        self.assertEqual(h["protocol"], 2)
        self.assertEqual(h["capabilities"]["devices"], 8)
        self.assertEqual(h["name"], "xla-cpu")
        jax_v = importlib.metadata.version("jax")
        jaxlib_v = importlib.metadata.version("jaxlib")
        self.assertEqual(h["version"], f"jax {jax_v} / jaxlib {jaxlib_v}")
        caps = h["capabilities"]
        self.assertEqual(caps["module_formats"], ["stablehlo"])
        self.assertIsNone(caps["opcodes"])
        self.assertEqual(caps["layouts"], "row-major")
        for t in ["pred", "s8", "u64", "f16", "bf16", "f32", "f64", "c64", "c128", "f8e4m3fn", "f8e5m2"]:
            self.assertIn(t, caps["element_types"])
        self.assertIn(caps["subnormals"], ["flush", "preserve"])

    def test_declared_subnormal_mode_matches_behaviour(self):
        # 2^-70 * 2^-70 = 2^-140 is an f32 subnormal; 2^-140 * 2^20 reads a subnormal input.
        a = np.array([2.0**-70, 2.0**-140], np.float32)
        b = np.array([2.0**-70, 2.0**20], np.float32)
        (out,), _ = self.ok(binary("multiply", "tensor<2xf32>"), [("f32", a, None), ("f32", b, None)])
        if self.w.hello["capabilities"]["subnormals"] == "flush":
            self.assertTrue(out[0] == 0 or out[1] == 0, out)
        else:
            np.testing.assert_array_equal(out, a * b)

    def test_replicated_all_reduce_runs_on_host_devices(self):
        # Protocol 2: each device's inputs in turn, each device's outputs in turn.
        module = {"stablehlo": """module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 3 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>) {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.replica_id"() : () -> tensor<ui32>
    "func.return"(%0, %1) : (tensor<2xf32>, tensor<ui32>) -> ()
  }
}"""}
        inputs = [("f32", np.array([1.0, 2.5], np.float32), None),
                  ("f32", np.array([3.0, 5.25], np.float32), None),
                  ("f32", np.array([0.5, 0.25], np.float32), None)]
        header, data = self.w.execute(module, inputs, devices={"replicas": 3, "partitions": 1})
        self.assertEqual(header["type"], "result", header)
        outs = [decode(d, f) for d, f in zip(header["outputs"], data)]
        self.assertEqual(len(outs), 6)
        for r in range(3):
            np.testing.assert_array_equal(outs[2 * r], np.array([4.5, 8.0], np.float32))
            self.assertEqual(int(outs[2 * r + 1]), r)
        # Several partitions: unsupported, with the reason.
        header, _ = self.w.execute(module, inputs[:2], devices={"replicas": 1, "partitions": 2})
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        self.assertIn("SPMD partitioner", header["message"])

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

    def test_multiple_results_are_returned_in_order(self):
        t = "tensor<3xs32>".replace("s32", "i32")
        module = stablehlo(
            [t, t],
            [t, t],
            [
                f'%0 = "stablehlo.subtract"(%arg0, %arg1) : ({t}, {t}) -> {t}',
                f'"func.return"(%arg1, %0) : ({t}, {t}) -> ()',
            ],
        )
        a = np.array([10, 20, 30], np.int32)
        b = np.array([1, 2, 3], np.int32)
        (first, second), descs = self.ok(module, [("s32", a, None), ("s32", b, None)])
        self.assertEqual([d["element_type"] for d in descs], ["s32", "s32"])
        np.testing.assert_array_equal(first, b)
        np.testing.assert_array_equal(second, a - b)

    def test_tuple_typed_entry_result_is_invalid_with_hint(self):
        t = "tensor<2xf32>"
        tt = f"tuple<{t}, {t}>"
        module = stablehlo(
            [t],
            [tt],
            [
                f'%0 = "stablehlo.tuple"(%arg0, %arg0) : ({t}, {t}) -> {tt}',
                f'"func.return"(%0) : ({tt}) -> ()',
            ],
        )
        header, _ = self.w.execute(module, [("f32", np.zeros(2, np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)
        self.assertIn("leaves as the results of @main", header["message"])

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

    def test_bf16(self):
        a = np.array([1.0, 2.5, -3.0, 256.0], ml_dtypes.bfloat16)
        b = np.array([1.0, 0.5, 0.0078125, 1.0], ml_dtypes.bfloat16)
        (out,), descs = self.ok(binary("add", "tensor<4xbf16>"), [("bf16", a, None), ("bf16", b, None)])
        self.assertEqual(descs[0]["element_type"], "bf16")
        # 256 + 1 rounds to 256 in bf16 (8 significand bits); -3 + 2^-7 rounds to -3 (ties-to-even)
        np.testing.assert_array_equal(out.astype(np.float32), [2.0, 3.0, -3.0, 256.0])

    def test_c64_interleaved(self):
        a = np.array([1 + 2j, -3 + 0.5j], np.complex64)
        b = np.array([3 - 1j, 2 + 2j], np.complex64)
        t = "tensor<2xcomplex<f32>>"
        (out,), descs = self.ok(binary("multiply", t), [("c64", a, None), ("c64", b, None)])
        self.assertEqual(descs[0]["element_type"], "c64")
        np.testing.assert_array_equal(out, a * b)

    def test_pred(self):
        a = np.array([True, False, True, False])
        b = np.array([True, True, False, False])
        (out,), descs = self.ok(binary("and", "tensor<4xi1>"), [("pred", a, None), ("pred", b, None)])
        self.assertEqual(descs[0]["element_type"], "pred")
        np.testing.assert_array_equal(out, a & b)

    def test_pred_comparison_output_bytes_are_0_or_1(self):
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
        a = np.array([1, 2, 3], np.float32)
        b = np.array([2, 2, 2], np.float32)
        header, data = self.w.execute(module, [("f32", a, None), ("f32", b, None)])
        self.assertEqual(header["outputs"][0]["element_type"], "pred")
        self.assertEqual(data[0], b"\x01\x00\x00")

    def test_f8e4m3fn(self):
        a = np.array([1.0, 448.0, -2.0], ml_dtypes.float8_e4m3fn)
        b = np.array([0.125, 1.0, 0.5], ml_dtypes.float8_e4m3fn)
        (out,), descs = self.ok(binary("multiply", "tensor<3xf8E4M3FN>"), [("f8e4m3fn", a, None), ("f8e4m3fn", b, None)])
        self.assertEqual(descs[0]["element_type"], "f8e4m3fn")
        np.testing.assert_array_equal(out.astype(np.float32), [0.125, 448.0, -1.0])

    def test_64_bit_types_are_not_narrowed(self):
        a = np.array([2**40 + 1, -(2**62)], np.int64)
        (out,), descs = self.ok(binary("add", "tensor<2xi64>"), [("s64", a, None), ("s64", a, None)])
        self.assertEqual(descs[0]["element_type"], "s64")
        np.testing.assert_array_equal(out, a + a)
        x = np.array([1 + 2.0**-40], np.float64)
        (out,), descs = self.ok(binary("multiply", "tensor<1xf64>"), [("f64", x, None), ("f64", x, None)])
        self.assertEqual(descs[0]["element_type"], "f64")
        np.testing.assert_array_equal(out, x * x)
        u = np.array([2**64 - 1], np.uint64)
        (out,), _ = self.ok(binary("maximum", "tensor<1xui64>"), [("u64", u, None), ("u64", u, None)])
        np.testing.assert_array_equal(out, u)

    def test_scalar_and_zero_sized(self):
        module = stablehlo(
            ["tensor<f32>", "tensor<0x3xf32>"],
            ["tensor<f32>", "tensor<0x3xf32>"],
            ['"func.return"(%arg0, %arg1) : (tensor<f32>, tensor<0x3xf32>) -> ()'],
        )
        (s, z), descs = self.ok(module, [("f32", np.float32(7), None), ("f32", np.zeros((0, 3), np.float32), [0, 1])])
        self.assertEqual(descs[0], {"element_type": "f32", "dimensions": [], "minor_to_major": []})
        self.assertEqual(descs[1]["dimensions"], [0, 3])
        self.assertEqual(float(s), 7.0)
        self.assertEqual(z.shape, (0, 3))

    def test_compile_error_is_invalid_with_compiler_message(self):
        module = stablehlo(
            ["tensor<2xf32>"],
            ["tensor<3xf32>"],
            [
                '%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>',
                '"func.return"(%0) : (tensor<3xf32>) -> ()',
            ],
        )
        header, _ = self.w.execute(module, [("f32", np.zeros(2, np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)
        self.assertIn("stablehlo.add", header["message"])
        self.assertLessEqual(len(header["message"]), 2000)

    def test_unparseable_text_is_invalid(self):
        header, _ = self.w.execute({"stablehlo": "module { this is not mlir }"}, [])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)

    def test_module_without_stablehlo_is_unsupported(self):
        hlo = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n"
        header, _ = self.w.execute({"hlo": hlo}, [("f32", np.zeros(2, np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)

    def test_infeed_and_outfeed_are_unsupported_without_blocking(self):
        # jaxlib binds no transfer_to_infeed: compiling and running would wait for ever.
        t = "tensor<2xf32>"
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1:2 = "stablehlo.infeed"(%0) <{{infeed_config = ""}}> : (!stablehlo.token) -> ({t}, !stablehlo.token)',
            f'"func.return"(%1#0) : ({t}) -> ()',
        ]
        header, _ = self.w.execute(stablehlo([], [t], body), [])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        self.assertIn("transfer_to_infeed", header["message"])

    def test_a_token_result_has_no_output(self):
        # JAX returns the token of its ordered effects; it is not a value (docs/protocol.md).
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

    def test_send_is_unsupported_by_xla_cpu(self):
        t = "tensor<2xf32>"
        attrs = ('channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false, '
                 'mhlo.frontend_attributes = {_xla_send_recv_source_target_pairs = "{{0,0}}"}')
        body = [
            '%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
            f'%1 = "stablehlo.send"(%arg0, %0) <{{{attrs}}}> : ({t}, !stablehlo.token) -> !stablehlo.token',
            f'"func.return"(%arg0) : ({t}) -> ()',
        ]
        header, _ = self.w.execute(stablehlo([t], [t], body), [("f32", np.zeros(2, np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        self.assertIn("send", header["message"])

    def test_chlo_function_without_an_expansion_for_the_type_is_unsupported(self):
        # XLA has no expansion of chlo.erfc for the f8 types: valid StableHLO it cannot lower.
        t = "tensor<2xf8E4M3FN>"
        module = stablehlo([t], [t], [f'%0 = "chlo.erfc"(%arg0) : ({t}) -> {t}', f'"func.return"(%0) : ({t}) -> ()'])
        header, _ = self.w.execute(module, [("f8e4m3fn", np.zeros(2, np.uint8), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        self.assertIn("chlo.erfc", header["message"])

    def test_chlo_function_runs(self):
        t = "tensor<2xf32>"
        module = stablehlo([t], [t], [f'%0 = "chlo.lgamma"(%arg0) : ({t}) -> {t}', f'"func.return"(%0) : ({t}) -> ()'])
        (out,), _ = self.ok(module, [("f32", np.array([1.0, 0.5], np.float32), None)])
        # lgamma(1) is exactly 0; XLA's expansion gives 4.8e-7 (the harness reports it), so only
        # "small" is asserted here: this tests the worker, not XLA's accuracy.
        self.assertLess(abs(float(out[0])), 1e-6)
        self.assertAlmostEqual(float(out[1]), 0.5723649, places=6)

    def test_input_type_mismatch_is_invalid(self):
        # same byte size: XLA itself would silently reinterpret the s32 bits as f32
        a = np.zeros((2, 3), np.int32)
        header, _ = self.w.execute(binary("add", "tensor<2x3xf32>"), [("s32", a, None), ("s32", a, None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)
        self.assertIn("parameter 0 is f32[2, 3]", header["message"])

    def test_input_count_mismatch_is_invalid(self):
        header, _ = self.w.execute(binary("add", "tensor<2xf32>"), [("f32", np.zeros(2, np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)

    def test_bad_data_frame_length_is_invalid(self):
        desc = {"element_type": "f32", "dimensions": [2], "minor_to_major": [0]}
        self.w.send(
            {"type": "execute", "id": 900, "module": binary("add", "tensor<2xf32>"), "inputs": [desc, desc]},
            [b"\0" * 8, b"\0" * 7],
        )
        header, _ = self.w.read_message()
        self.assertEqual((header["id"], header["type"], header["kind"]), (900, "error", "invalid"), header)
        self.assertIn("input 1", header["message"])

    def test_bad_minor_to_major_and_element_type_are_invalid(self):
        bad = [
            {"element_type": "f32", "dimensions": [2, 2], "minor_to_major": [0, 0]},
            {"element_type": "f7", "dimensions": [2], "minor_to_major": [0]},
        ]
        for desc in bad:
            n = 4 * int(np.prod(desc["dimensions"]))
            self.w.send({"type": "execute", "id": 901, "module": binary("add", "tensor<2xf32>"), "inputs": [desc]}, [b"\0" * n])
            header, _ = self.w.read_message()
            self.assertEqual((header["id"], header["kind"]), (901, "invalid"), header)

    def test_pred_input_bytes_other_than_0_1_are_invalid(self):
        desc = {"element_type": "pred", "dimensions": [2], "minor_to_major": [0]}
        self.w.send({"type": "execute", "id": 902, "module": binary("and", "tensor<2xi1>"), "inputs": [desc, desc]}, [b"\x01\x02", b"\x01\x01"])
        header, _ = self.w.read_message()
        self.assertEqual((header["id"], header["kind"]), (902, "invalid"), header)

    def test_same_module_twice_uses_the_cache_and_stays_correct(self):
        m = binary("subtract", "tensor<2xf32>")
        for k in range(3):
            a = np.array([k, 2 * k], np.float32)
            (out,), _ = self.ok(m, [("f32", a, None), ("f32", np.ones(2, np.float32), None)])
            np.testing.assert_array_equal(out, a - 1)


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
