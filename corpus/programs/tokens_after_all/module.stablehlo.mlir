module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, !stablehlo.token {jax.result_info = "result[1]"}) {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = stablehlo.create_token : !stablehlo.token
    %2 = stablehlo.after_all %0, %1 : !stablehlo.token
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.multiply %arg0, %3 : tensor<8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.add %4, %5 : tensor<8xf32>
    return %6, %2 : tensor<8xf32>, !stablehlo.token
  }
}
