module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<i32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %2 = stablehlo.convert %1 : (tensor<32xi1>) -> tensor<32xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<32xi32>, tensor<i32>) -> tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %4 = call @remainder(%3, %c_0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c_1, %4, %c_2 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %15 = stablehlo.sine %arg0 : tensor<32xf32>
      stablehlo.return %15 : tensor<32xf32>
    }, {
      %15 = stablehlo.cosine %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.multiply %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }, {
      %15 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.subtract %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }) : (tensor<i32>) -> tensor<32xf32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %7 = stablehlo.add %4, %c_3 : tensor<i32>
    %c_4 = stablehlo.constant dense<3> : tensor<i32>
    %8 = call @remainder(%7, %c_4) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %c_6 = stablehlo.constant dense<2> : tensor<i32>
    %9 = stablehlo.clamp %c_5, %8, %c_6 : tensor<i32>
    %10 = "stablehlo.case"(%9) ({
      %15 = stablehlo.sine %arg0 : tensor<32xf32>
      stablehlo.return %15 : tensor<32xf32>
    }, {
      %15 = stablehlo.cosine %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.multiply %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }, {
      %15 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.subtract %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }) : (tensor<i32>) -> tensor<32xf32>
    %c_7 = stablehlo.constant dense<2> : tensor<i32>
    %11 = stablehlo.add %4, %c_7 : tensor<i32>
    %c_8 = stablehlo.constant dense<3> : tensor<i32>
    %12 = call @remainder(%11, %c_8) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %c_10 = stablehlo.constant dense<2> : tensor<i32>
    %13 = stablehlo.clamp %c_9, %12, %c_10 : tensor<i32>
    %14 = "stablehlo.case"(%13) ({
      %15 = stablehlo.sine %arg0 : tensor<32xf32>
      stablehlo.return %15 : tensor<32xf32>
    }, {
      %15 = stablehlo.cosine %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.multiply %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }, {
      %15 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
      %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %16 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %17 = stablehlo.subtract %15, %16 : tensor<32xf32>
      stablehlo.return %17 : tensor<32xf32>
    }) : (tensor<i32>) -> tensor<32xf32>
    return %6, %10, %14, %4 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<i32>
  }
  func.func private @remainder(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare NE, %3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %3, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.compare NE, %5, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %8 = stablehlo.and %7, %4 : tensor<i1>
    %9 = stablehlo.add %3, %2 : tensor<i32>
    %10 = stablehlo.select %8, %9, %3 : tensor<i1>, tensor<i32>
    return %10 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
