module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x16xf32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<6x16xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %c_1, %iterArg_3 = %0, %iterArg_4 = %c, %iterArg_5 = %1) : tensor<6x16xf32>, tensor<i32>, tensor<16xf32>, tensor<i32>, tensor<6x16xf32>
    cond {
      %c_6 = stablehlo.constant dense<6> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_2, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<6x16xf32>, tensor<i32>) -> tensor<16xf32>
      %4:3 = func.call @closed_call(%iterArg_3, %iterArg_4, %3) : (tensor<16xf32>, tensor<i32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<i32>, tensor<16xf32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_5, %4#2, %iterArg_2) : (tensor<6x16xf32>, tensor<16xf32>, tensor<i32>) -> tensor<6x16xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_2, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %6, %4#0, %4#1, %5 : tensor<6x16xf32>, tensor<i32>, tensor<16xf32>, tensor<i32>, tensor<6x16xf32>
    }
    return %2#2, %2#4 : tensor<16xf32>, tensor<6x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x16xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 16] : (tensor<6x16xf32>, tensor<i32>, tensor<i32>) -> tensor<1x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16xf32>) -> tensor<16xf32>
    return %1 : tensor<16xf32>
  }
  func.func private @closed_call(%arg0: tensor<16xf32>, %arg1: tensor<i32>, %arg2: tensor<16xf32>) -> (tensor<16xf32>, tensor<i32>, tensor<16xf32>) {
    %c = stablehlo.constant dense<3> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = stablehlo.while(%iterArg = %arg2, %iterArg_2 = %c_0, %iterArg_3 = %0, %iterArg_4 = %arg2) : tensor<16xf32>, tensor<i32>, tensor<i32>, tensor<16xf32>
    cond {
      %4 = stablehlo.compare LT, %iterArg_2, %iterArg_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_2, %c_5 : tensor<i32>
      %5 = stablehlo.divide %iterArg, %iterArg_4 : tensor<16xf32>
      %6 = stablehlo.add %iterArg_4, %5 : tensor<16xf32>
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %8 = stablehlo.multiply %7, %6 : tensor<16xf32>
      stablehlo.return %iterArg, %4, %iterArg_3, %8 : tensor<16xf32>, tensor<i32>, tensor<i32>, tensor<16xf32>
    }
    %2 = stablehlo.add %arg0, %1#3 : tensor<16xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.add %arg1, %c_1 : tensor<i32>
    return %2, %3, %1#3 : tensor<16xf32>, tensor<i32>, tensor<16xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<i32>) -> tensor<6x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<6x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<6x16xf32>
    return %1 : tensor<6x16xf32>
  }
}
