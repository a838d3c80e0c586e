module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<8x16xui32> {jax.result_info = "result[0]"}, tensor<256xf32> {jax.result_info = "result[1]"}, tensor<64xi32> {jax.result_info = "result[2]"}, tensor<3x5xui8> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %1 = stablehlo.slice %0 [0:2, 0:1] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %2 = stablehlo.reshape %1 : (tensor<2x1xui32>) -> tensor<2xui32>
    %3 = stablehlo.slice %0 [0:2, 1:2] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %4 = stablehlo.reshape %3 : (tensor<2x1xui32>) -> tensor<2xui32>
    %5 = stablehlo.iota dim = 0 : tensor<4xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %7 = stablehlo.multiply %6, %5 : tensor<4xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %9 = stablehlo.shift_right_logical %7, %8 : tensor<4xui64>
    %10 = stablehlo.convert %7 : (tensor<4xui64>) -> tensor<4xui32>
    %11 = stablehlo.convert %9 : (tensor<4xui64>) -> tensor<4xui32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [1] : (tensor<4xui32>) -> tensor<1x4xui32>
    %13 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<4xui32>) -> tensor<1x4xui32>
    %14 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %15 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %16:2 = call @threefry2x32(%14, %15, %12, %13) : (tensor<2x1xui32>, tensor<2x1xui32>, tensor<1x4xui32>, tensor<1x4xui32>) -> (tensor<2x4xui32>, tensor<2x4xui32>)
    %17 = stablehlo.broadcast_in_dim %16#0, dims = [0, 1] : (tensor<2x4xui32>) -> tensor<2x4x1xui32>
    %18 = stablehlo.broadcast_in_dim %16#1, dims = [0, 1] : (tensor<2x4xui32>) -> tensor<2x4x1xui32>
    %19 = stablehlo.concatenate %17, %18, dim = 2 : (tensor<2x4x1xui32>, tensor<2x4x1xui32>) -> tensor<2x4x2xui32>
    %20 = stablehlo.transpose %19, dims = [1, 0, 2] : (tensor<2x4x2xui32>) -> tensor<4x2x2xui32>
    %21 = stablehlo.reshape %20 : (tensor<4x2x2xui32>) -> tensor<4x4xui32>
    %22 = stablehlo.slice %21 [0:1, 0:4] : (tensor<4x4xui32>) -> tensor<1x4xui32>
    %23 = stablehlo.reshape %22 : (tensor<1x4xui32>) -> tensor<4xui32>
    %24 = stablehlo.slice %21 [1:2, 0:4] : (tensor<4x4xui32>) -> tensor<1x4xui32>
    %25 = stablehlo.reshape %24 : (tensor<1x4xui32>) -> tensor<4xui32>
    %26 = stablehlo.slice %21 [2:3, 0:4] : (tensor<4x4xui32>) -> tensor<1x4xui32>
    %27 = stablehlo.reshape %26 : (tensor<1x4xui32>) -> tensor<4xui32>
    %28 = stablehlo.slice %21 [3:4, 0:4] : (tensor<4x4xui32>) -> tensor<1x4xui32>
    %29 = stablehlo.reshape %28 : (tensor<1x4xui32>) -> tensor<4xui32>
    %30 = stablehlo.reshape %23 : (tensor<4xui32>) -> tensor<2x2xui32>
    %31 = stablehlo.bitcast_convert %30 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %31, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<8x16xui32>)
    %32 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %33 = stablehlo.reshape %32 : (tensor<2x2xui32>) -> tensor<4xui32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = call @_uniform(%25, %cst, %cst_1) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<256xf32>
    %c_2 = stablehlo.constant dense<-5> : tensor<i32>
    %c_3 = stablehlo.constant dense<20> : tensor<i32>
    %35 = call @_randint(%27, %c_2, %c_3) : (tensor<4xui32>, tensor<i32>, tensor<i32>) -> tensor<64xi32>
    %36 = stablehlo.reshape %29 : (tensor<4xui32>) -> tensor<2x2xui32>
    %37 = stablehlo.bitcast_convert %36 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_4, %output_5 = stablehlo.rng_bit_generator %37, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui8>)
    %38 = stablehlo.bitcast_convert %output_state_4 : (tensor<2xui64>) -> tensor<2x2xui32>
    %39 = stablehlo.reshape %38 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %output, %34, %35, %output_5 : tensor<8x16xui32>, tensor<256xf32>, tensor<64xi32>, tensor<3x5xui8>
  }
  func.func private @threefry2x32(%arg0: tensor<2x1xui32>, %arg1: tensor<2x1xui32>, %arg2: tensor<1x4xui32>, %arg3: tensor<1x4xui32>) -> (tensor<2x4xui32>, tensor<2x4xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<2x1xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<2x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<2x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x4xui32>) -> tensor<2x4xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x4xui32>
    %5 = stablehlo.add %3, %4 : tensor<2x4xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x4xui32>) -> tensor<2x4xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x4xui32>
    %8 = stablehlo.add %6, %7 : tensor<2x4xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %5, %iterArg_6 = %8, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i32>, tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i32>
      %10 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i32>
      %11 = stablehlo.add %iterArg, %c_12 : tensor<i32>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i32>, tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<2x4xui32>, tensor<2x4xui32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<2x4xui32>, %arg2: tensor<2x4xui32>, %arg3: tensor<2x1xui32>, %arg4: tensor<2x1xui32>, %arg5: tensor<2x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<2x4xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<2x4xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<2x4xui32>
    %9 = stablehlo.or %5, %8 : tensor<2x4xui32>
    %10 = stablehlo.xor %3, %9 : tensor<2x4xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<2x4xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<2x4xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<2x4xui32>
    %19 = stablehlo.or %15, %18 : tensor<2x4xui32>
    %20 = stablehlo.xor %13, %19 : tensor<2x4xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<2x4xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<2x4xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<2x4xui32>
    %29 = stablehlo.or %25, %28 : tensor<2x4xui32>
    %30 = stablehlo.xor %23, %29 : tensor<2x4xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<2x4xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<2x4xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<2x4xui32>
    %39 = stablehlo.or %35, %38 : tensor<2x4xui32>
    %40 = stablehlo.xor %33, %39 : tensor<2x4xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x4xui32>
    %42 = stablehlo.add %33, %41 : tensor<2x4xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x4xui32>
    %44 = stablehlo.add %40, %43 : tensor<2x4xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<2x4xui32>
    %48 = stablehlo.add %44, %47 : tensor<2x4xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<2x4xui32>, tensor<2x4xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_uniform(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<256xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %5, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<256xui32>)
    %6 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %7 = stablehlo.reshape %6 : (tensor<2x2xui32>) -> tensor<4xui32>
    %c = stablehlo.constant dense<9> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<256xui32>
    %9 = stablehlo.shift_right_logical %output, %8 : tensor<256xui32>
    %c_0 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<256xui32>
    %11 = stablehlo.or %9, %10 : tensor<256xui32>
    %12 = stablehlo.bitcast_convert %11 : (tensor<256xui32>) -> tensor<256xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %14 = stablehlo.subtract %12, %13 : tensor<256xf32>
    %15 = stablehlo.subtract %3, %2 : tensor<1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<1xf32>) -> tensor<256xf32>
    %17 = stablehlo.multiply %14, %16 : tensor<256xf32>
    %18 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<256xf32>
    %19 = stablehlo.add %17, %18 : tensor<256xf32>
    %20 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<256xf32>
    %21 = stablehlo.maximum %20, %19 : tensor<256xf32>
    return %21 : tensor<256xf32>
  }
  func.func private @_randint(%arg0: tensor<4xui32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<64xi32> {
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %c_0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %0 = call @clip(%c, %c_0, %c_1) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %1 = stablehlo.compare GT, %arg2, %0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_3 = stablehlo.constant dense<2147483647> : tensor<i32>
    %2 = call @clip_0(%arg1, %c_2, %c_3) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.convert %2 : tensor<i32>
    %c_4 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_5 = stablehlo.constant dense<2147483647> : tensor<i32>
    %4 = call @clip_0(%arg2, %c_4, %c_5) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %5 = stablehlo.convert %4 : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %8 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %9 = stablehlo.slice %8 [0:2, 0:1] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %10 = stablehlo.reshape %9 : (tensor<2x1xui32>) -> tensor<2xui32>
    %11 = stablehlo.slice %8 [0:2, 1:2] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %12 = stablehlo.reshape %11 : (tensor<2x1xui32>) -> tensor<2xui32>
    %13 = stablehlo.iota dim = 0 : tensor<2xui64>
    %c_6 = stablehlo.constant dense<1> : tensor<ui64>
    %14 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %15 = stablehlo.multiply %14, %13 : tensor<2xui64>
    %c_7 = stablehlo.constant dense<32> : tensor<ui64>
    %16 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %17 = stablehlo.shift_right_logical %15, %16 : tensor<2xui64>
    %18 = stablehlo.convert %15 : (tensor<2xui64>) -> tensor<2xui32>
    %19 = stablehlo.convert %17 : (tensor<2xui64>) -> tensor<2xui32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %21 = stablehlo.broadcast_in_dim %18, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %22 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %23 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %24:2 = call @threefry2x32_1(%22, %23, %20, %21) : (tensor<2x1xui32>, tensor<2x1xui32>, tensor<1x2xui32>, tensor<1x2xui32>) -> (tensor<2x2xui32>, tensor<2x2xui32>)
    %25 = stablehlo.broadcast_in_dim %24#0, dims = [0, 1] : (tensor<2x2xui32>) -> tensor<2x2x1xui32>
    %26 = stablehlo.broadcast_in_dim %24#1, dims = [0, 1] : (tensor<2x2xui32>) -> tensor<2x2x1xui32>
    %27 = stablehlo.concatenate %25, %26, dim = 2 : (tensor<2x2x1xui32>, tensor<2x2x1xui32>) -> tensor<2x2x2xui32>
    %28 = stablehlo.transpose %27, dims = [1, 0, 2] : (tensor<2x2x2xui32>) -> tensor<2x2x2xui32>
    %29 = stablehlo.reshape %28 : (tensor<2x2x2xui32>) -> tensor<2x4xui32>
    %30 = stablehlo.slice %29 [0:1, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %31 = stablehlo.reshape %30 : (tensor<1x4xui32>) -> tensor<4xui32>
    %32 = stablehlo.slice %29 [1:2, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %33 = stablehlo.reshape %32 : (tensor<1x4xui32>) -> tensor<4xui32>
    %34 = stablehlo.reshape %31 : (tensor<4xui32>) -> tensor<2x2xui32>
    %35 = stablehlo.bitcast_convert %34 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %35, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<64xui32>)
    %36 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %37 = stablehlo.reshape %36 : (tensor<2x2xui32>) -> tensor<4xui32>
    %38 = stablehlo.reshape %33 : (tensor<4xui32>) -> tensor<2x2xui32>
    %39 = stablehlo.bitcast_convert %38 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_8, %output_9 = stablehlo.rng_bit_generator %39, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<64xui32>)
    %40 = stablehlo.bitcast_convert %output_state_8 : (tensor<2xui64>) -> tensor<2x2xui32>
    %41 = stablehlo.reshape %40 : (tensor<2x2xui32>) -> tensor<4xui32>
    %42 = stablehlo.subtract %7, %6 : tensor<1xi32>
    %43 = stablehlo.convert %42 : (tensor<1xi32>) -> tensor<1xui32>
    %44 = stablehlo.compare LE, %7, %6, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %c_10 = stablehlo.constant dense<1> : tensor<ui32>
    %45 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %46 = stablehlo.select %44, %45, %43 : tensor<1xi1>, tensor<1xui32>
    %47 = stablehlo.compare GT, %7, %6, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %48 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %49 = stablehlo.and %48, %47 : tensor<1xi1>
    %c_11 = stablehlo.constant dense<1> : tensor<ui32>
    %50 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %51 = stablehlo.add %46, %50 : tensor<1xui32>
    %52 = stablehlo.select %49, %51, %46 : tensor<1xi1>, tensor<1xui32>
    %c_12 = stablehlo.constant dense<65536> : tensor<ui32>
    %53 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %54 = stablehlo.remainder %53, %52 : tensor<1xui32>
    %55 = stablehlo.multiply %54, %54 : tensor<1xui32>
    %56 = stablehlo.remainder %55, %52 : tensor<1xui32>
    %57 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<1xui32>) -> tensor<64xui32>
    %58 = stablehlo.remainder %output, %57 : tensor<64xui32>
    %59 = stablehlo.broadcast_in_dim %56, dims = [0] : (tensor<1xui32>) -> tensor<64xui32>
    %60 = stablehlo.multiply %58, %59 : tensor<64xui32>
    %61 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<1xui32>) -> tensor<64xui32>
    %62 = stablehlo.remainder %output_9, %61 : tensor<64xui32>
    %63 = stablehlo.add %60, %62 : tensor<64xui32>
    %64 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<1xui32>) -> tensor<64xui32>
    %65 = stablehlo.remainder %63, %64 : tensor<64xui32>
    %66 = stablehlo.convert %65 : (tensor<64xui32>) -> tensor<64xi32>
    %67 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<1xi32>) -> tensor<64xi32>
    %68 = stablehlo.add %67, %66 : tensor<64xi32>
    return %68 : tensor<64xi32>
  }
  func.func private @clip(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<i32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @clip_0(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<i32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @threefry2x32_1(%arg0: tensor<2x1xui32>, %arg1: tensor<2x1xui32>, %arg2: tensor<1x2xui32>, %arg3: tensor<1x2xui32>) -> (tensor<2x2xui32>, tensor<2x2xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<2x1xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<2x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<2x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<2x2xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.add %3, %4 : tensor<2x2xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<2x2xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %8 = stablehlo.add %6, %7 : tensor<2x2xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %5, %iterArg_6 = %8, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i32>, tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i32>
      %10 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call_2(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i32>
      %11 = stablehlo.add %iterArg, %c_12 : tensor<i32>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i32>, tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<2x2xui32>, tensor<2x2xui32>
  }
  func.func private @closed_call_2(%arg0: tensor<i32>, %arg1: tensor<2x2xui32>, %arg2: tensor<2x2xui32>, %arg3: tensor<2x1xui32>, %arg4: tensor<2x1xui32>, %arg5: tensor<2x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<2x2xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<2x2xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<2x2xui32>
    %9 = stablehlo.or %5, %8 : tensor<2x2xui32>
    %10 = stablehlo.xor %3, %9 : tensor<2x2xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<2x2xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<2x2xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<2x2xui32>
    %19 = stablehlo.or %15, %18 : tensor<2x2xui32>
    %20 = stablehlo.xor %13, %19 : tensor<2x2xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<2x2xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<2x2xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<2x2xui32>
    %29 = stablehlo.or %25, %28 : tensor<2x2xui32>
    %30 = stablehlo.xor %23, %29 : tensor<2x2xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<2x2xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<2x2xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<2x2xui32>
    %39 = stablehlo.or %35, %38 : tensor<2x2xui32>
    %40 = stablehlo.xor %33, %39 : tensor<2x2xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %42 = stablehlo.add %33, %41 : tensor<2x2xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %44 = stablehlo.add %40, %43 : tensor<2x2xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %48 = stablehlo.add %44, %47 : tensor<2x2xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
}
