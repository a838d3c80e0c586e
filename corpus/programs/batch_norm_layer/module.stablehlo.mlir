module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8x6x6xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<4x8x6x6xf32>) -> (tensor<4x8x6x6xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<4x8x6x6xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xf32> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.divide %0, %1 : tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x8x6x6xf32>
    %6 = chlo.square %5 : tensor<4x8x6x6xf32> -> tensor<4x8x6x6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_2 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %9 = stablehlo.divide %7, %8 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %11 = stablehlo.add %9, %10 : tensor<8xf32>
    %12 = stablehlo.rsqrt %11 : tensor<8xf32>
    %13 = stablehlo.multiply %12, %arg1 : tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %16 = stablehlo.multiply %5, %15 : tensor<4x8x6x6xf32>
    %17 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %19 = stablehlo.add %16, %18 : tensor<4x8x6x6xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%arg0 init: %cst_4) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_5 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.divide %20, %21 : tensor<8xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %25 = stablehlo.subtract %arg0, %24 : tensor<4x8x6x6xf32>
    %26 = chlo.square %25 : tensor<4x8x6x6xf32> -> tensor<4x8x6x6xf32>
    %cst_6 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8x6x6xf32>
    %28 = stablehlo.multiply %27, %25 : tensor<4x8x6x6xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%26 init: %cst_7) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_8 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %31 = stablehlo.divide %29, %30 : tensor<8xf32>
    %cst_9 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %33 = stablehlo.add %31, %32 : tensor<8xf32>
    %34 = stablehlo.rsqrt %33 : tensor<8xf32>
    %35 = stablehlo.divide %34, %33 : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<8xf32>
    %38 = stablehlo.multiply %34, %arg1 : tensor<8xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %41 = stablehlo.multiply %25, %40 : tensor<4x8x6x6xf32>
    %42 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %44 = stablehlo.add %41, %43 : tensor<4x8x6x6xf32>
    %45 = stablehlo.multiply %44, %arg3 : tensor<4x8x6x6xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<f32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x8x6x6xf32>
    %48 = stablehlo.multiply %47, %arg3 : tensor<4x8x6x6xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_13) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %50 = stablehlo.reshape %49 : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%50 init: %cst_14) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<8xf32>
    %52 = stablehlo.multiply %25, %48 : tensor<4x8x6x6xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_15) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %54 = stablehlo.reshape %53 : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %55 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<4x8x6x6xf32>
    %56 = stablehlo.multiply %48, %55 : tensor<4x8x6x6xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%54 init: %cst_16) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<8xf32>
    %58 = stablehlo.multiply %34, %57 : tensor<8xf32>
    %59 = stablehlo.multiply %57, %arg1 : tensor<8xf32>
    %60 = stablehlo.multiply %59, %37 : tensor<8xf32>
    %cst_17 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %62 = stablehlo.divide %60, %61 : tensor<8xf32>
    %63 = stablehlo.broadcast_in_dim %62, dims = [1] : (tensor<8xf32>) -> tensor<4x8x6x6xf32>
    %64 = stablehlo.multiply %63, %28 : tensor<4x8x6x6xf32>
    %65 = stablehlo.add %56, %64 : tensor<4x8x6x6xf32>
    %66 = stablehlo.negate %65 : tensor<4x8x6x6xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %67 = stablehlo.reduce(%66 init: %cst_18) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x8x6x6xf32>, tensor<f32>) -> tensor<8xf32>
    %68 = stablehlo.reshape %67 : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69 = stablehlo.reduce(%68 init: %cst_19) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_20 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %71 = stablehlo.divide %69, %70 : tensor<8xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [1] : (tensor<8xf32>) -> tensor<4x8x6x6xf32>
    %73 = stablehlo.add %65, %72 : tensor<4x8x6x6xf32>
    return %19, %2, %9, %46, %73, %58, %51 : tensor<4x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<4x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
