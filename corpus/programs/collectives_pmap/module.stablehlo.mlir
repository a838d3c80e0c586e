module @collectives_pmap attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg2: tensor<1x3xf32>, %arg3: tensor<1x8xf32>) -> (tensor<1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, tensor<1x3xf32>, tensor<1x2xf32>, tensor<1xi32>) {
    %1 = stablehlo.reshape %arg2 : (tensor<1x3xf32>) -> tensor<3xf32>
    %2 = stablehlo.reshape %arg3 : (tensor<1x8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %20 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %20 : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    %4 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %5 = "stablehlo.all_gather"(%4) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1x3xf32>) -> tensor<4x3xf32>
    %6 = stablehlo.reshape %2 : (tensor<8xf32>) -> tensor<4x2xf32>
    %7 = "stablehlo.all_to_all"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %8 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<3xf32>) -> tensor<3xf32>
    %9 = "stablehlo.reduce_scatter"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %20 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %20 : tensor<f32>
    }) : (tensor<8xf32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<4> : tensor<ui32>
    %10 = stablehlo.partition_id : tensor<ui32>
    %11 = stablehlo.divide %10, %c : tensor<ui32>
    %12 = stablehlo.remainder %11, %c_0 : tensor<ui32>
    %13 = stablehlo.convert %12 : (tensor<ui32>) -> tensor<i32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %15 = stablehlo.broadcast_in_dim %5, dims = [1, 2] : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %16 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<4x2xf32>) -> tensor<1x4x2xf32>
    %17 = stablehlo.broadcast_in_dim %8, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %18 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %19 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<i32>) -> tensor<1xi32>
    return %14, %15, %16, %17, %18, %19 : tensor<1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, tensor<1x3xf32>, tensor<1x2xf32>, tensor<1xi32>
  }
}
