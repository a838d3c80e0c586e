module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>) -> (tensor<16xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<16xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<16xf32>
    %4:2 = stablehlo.optimization_barrier %1, %3 : tensor<16xf32>, tensor<16xf32>
    %5 = stablehlo.subtract %4#0, %4#1 : tensor<16xf32>
    return %5 : tensor<16xf32>
  }
}
