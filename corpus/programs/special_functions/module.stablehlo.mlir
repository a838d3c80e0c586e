module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<32xf32> {jax.result_info = "result[4]"}, tensor<32xf32> {jax.result_info = "result[5]"}, tensor<32xf32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}, tensor<32xf32> {jax.result_info = "result[8]"}, tensor<32xf32> {jax.result_info = "result[9]"}, tensor<32xf32> {jax.result_info = "result[10]"}, tensor<32xf32> {jax.result_info = "result[11]"}) {
    %0 = stablehlo.abs %arg0 : tensor<32xf32>
    %1 = chlo.lgamma %arg0 : tensor<32xf32> -> tensor<32xf32>
    %2 = chlo.digamma %arg0 : tensor<32xf32> -> tensor<32xf32>
    %3 = chlo.erf_inv %arg1 : tensor<32xf32> -> tensor<32xf32>
    %4 = chlo.bessel_i1e %arg0 : tensor<32xf32> -> tensor<32xf32>
    %5 = chlo.asin %arg1 : tensor<32xf32> -> tensor<32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %7 = stablehlo.add %0, %6 : tensor<32xf32>
    %8 = call @arccosh(%7) : (tensor<32xf32>) -> tensor<32xf32>
    %9 = chlo.atanh %arg1 : tensor<32xf32> -> tensor<32xf32>
    %10 = chlo.sinh %arg0 : tensor<32xf32> -> tensor<32xf32>
    %11 = chlo.erfc %arg0 : tensor<32xf32> -> tensor<32xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %13 = stablehlo.add %0, %12 : tensor<32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %15 = chlo.polygamma %14, %13 : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
    %cst_2 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %17 = stablehlo.add %0, %16 : tensor<32xf32>
    %cst_3 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %19 = stablehlo.add %0, %18 : tensor<32xf32>
    %20 = chlo.zeta %17, %19 : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
    %21 = chlo.next_after %arg0, %arg1 : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
    return %1, %2, %3, %4, %5, %8, %9, %10, %11, %15, %20, %21 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
  }
  func.func private @arccosh(%arg0: tensor<32xf32>) -> tensor<32xf32> {
    %0 = chlo.acosh %arg0 : tensor<32xf32> -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
}
