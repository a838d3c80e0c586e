module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<16x8xf32> {jax.result_info = "result[2]"}, tensor<16x8xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:6 = stablehlo.while(%iterArg = %arg0, %iterArg_3 = %c, %iterArg_4 = %0, %iterArg_5 = %1, %iterArg_6 = %2, %iterArg_7 = %3) : tensor<16x8xf32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
    cond {
      %c_8 = stablehlo.constant dense<16> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg_3, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<16x8xf32>, tensor<i32>) -> tensor<8xf32>
      %6:4 = func.call @closed_call(%iterArg_4, %iterArg_5, %5) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      %7 = func.call @dynamic_update_index_in_dim(%iterArg_6, %6#2, %iterArg_3) : (tensor<16x8xf32>, tensor<8xf32>, tensor<i32>) -> tensor<16x8xf32>
      %8 = func.call @dynamic_update_index_in_dim(%iterArg_7, %6#3, %iterArg_3) : (tensor<16x8xf32>, tensor<8xf32>, tensor<i32>) -> tensor<16x8xf32>
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg_3, %c_8 : tensor<i32>
      stablehlo.return %iterArg, %9, %6#0, %6#1, %7, %8 : tensor<16x8xf32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
    }
    return %4#2, %4#3, %4#4, %4#5 : tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<16x8xf32>, %arg1: tensor<i32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 8] : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x8xf32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %0 = stablehlo.add %arg0, %arg2 : tensor<8xf32>
    %1 = stablehlo.maximum %arg1, %arg2 : tensor<8xf32>
    return %0, %1, %0, %1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<16x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<i32>) -> tensor<16x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<16x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
}
