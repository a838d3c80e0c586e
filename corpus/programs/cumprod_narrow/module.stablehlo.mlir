module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xbf16>, %arg1: tensor<4x40xf16>) -> (tensor<64xbf16> {jax.result_info = "result[0]"}, tensor<4x40xf16> {jax.result_info = "result[1]"}) {
    %0 = call @cumprod(%arg0) : (tensor<64xbf16>) -> tensor<64xbf16>
    %1 = call @cumprod_1(%arg1) : (tensor<4x40xf16>) -> tensor<4x40xf16>
    return %0, %1 : tensor<64xbf16>, tensor<4x40xf16>
  }
  func.func private @cumprod(%arg0: tensor<64xbf16>) -> tensor<64xbf16> {
    %0 = call @cumprod_0(%arg0) : (tensor<64xbf16>) -> tensor<64xbf16>
    return %0 : tensor<64xbf16>
  }
  func.func private @cumprod_0(%arg0: tensor<64xbf16>) -> tensor<64xbf16> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<[[63, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 64>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<bf16>, %arg2: tensor<bf16>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<bf16>
      stablehlo.return %1 : tensor<bf16>
    }) : (tensor<64xbf16>, tensor<bf16>) -> tensor<64xbf16>
    return %0 : tensor<64xbf16>
  }
  func.func private @cumprod_1(%arg0: tensor<4x40xf16>) -> tensor<4x40xf16> {
    %0 = call @cumprod_2(%arg0) : (tensor<4x40xf16>) -> tensor<4x40xf16>
    return %0 : tensor<4x40xf16>
  }
  func.func private @cumprod_2(%arg0: tensor<4x40xf16>) -> tensor<4x40xf16> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f16>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [39, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 40>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f16>, %arg2: tensor<f16>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f16>
      stablehlo.return %1 : tensor<f16>
    }) : (tensor<4x40xf16>, tensor<f16>) -> tensor<4x40xf16>
    return %0 : tensor<4x40xf16>
  }
}
