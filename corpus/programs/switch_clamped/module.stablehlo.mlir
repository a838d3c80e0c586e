module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<i32> {jax.result_info = "result[2]"}, tensor<i32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %2 = stablehlo.convert %1 : (tensor<32xi1>) -> tensor<32xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<32xi32>, tensor<i32>) -> tensor<i32>
    %c_0 = stablehlo.constant dense<40> : tensor<i32>
    %4 = stablehlo.subtract %3, %c_0 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c_1, %3, %c_2 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %9 = stablehlo.sine %arg0 : tensor<32xf32>
      stablehlo.return %9 : tensor<32xf32>
    }, {
      %9 = stablehlo.cosine %arg0 : tensor<32xf32>
      %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %11 = stablehlo.multiply %9, %10 : tensor<32xf32>
      stablehlo.return %11 : tensor<32xf32>
    }, {
      %9 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %11 = stablehlo.subtract %9, %10 : tensor<32xf32>
      stablehlo.return %11 : tensor<32xf32>
    }) : (tensor<i32>) -> tensor<32xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %7 = stablehlo.clamp %c_3, %4, %c_4 : tensor<i32>
    %8 = "stablehlo.case"(%7) ({
      %9 = stablehlo.sine %arg0 : tensor<32xf32>
      stablehlo.return %9 : tensor<32xf32>
    }, {
      %9 = stablehlo.cosine %arg0 : tensor<32xf32>
      %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %11 = stablehlo.multiply %9, %10 : tensor<32xf32>
      stablehlo.return %11 : tensor<32xf32>
    }, {
      %9 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %11 = stablehlo.subtract %9, %10 : tensor<32xf32>
      stablehlo.return %11 : tensor<32xf32>
    }) : (tensor<i32>) -> tensor<32xf32>
    return %6, %8, %3, %4 : tensor<32xf32>, tensor<32xf32>, tensor<i32>, tensor<i32>
  }
}
