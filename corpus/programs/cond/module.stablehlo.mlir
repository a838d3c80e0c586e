module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}, tensor<i1> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.compare GT, %0, %1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %8 = stablehlo.exponential %arg1 : tensor<4x8xf32>
      %9 = stablehlo.subtract %arg0, %8 : tensor<4x8xf32>
      stablehlo.return %9 : tensor<4x8xf32>
    }, {
      %8 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xf32>
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %10 = stablehlo.add %8, %9 : tensor<4x8xf32>
      stablehlo.return %10 : tensor<4x8xf32>
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %5 = stablehlo.not %2 : tensor<i1>
    %6 = stablehlo.convert %5 : (tensor<i1>) -> tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %8 = stablehlo.exponential %arg1 : tensor<4x8xf32>
      %9 = stablehlo.subtract %arg0, %8 : tensor<4x8xf32>
      stablehlo.return %9 : tensor<4x8xf32>
    }, {
      %8 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xf32>
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %10 = stablehlo.add %8, %9 : tensor<4x8xf32>
      stablehlo.return %10 : tensor<4x8xf32>
    }) : (tensor<i32>) -> tensor<4x8xf32>
    return %4, %7, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<i1>
  }
}
