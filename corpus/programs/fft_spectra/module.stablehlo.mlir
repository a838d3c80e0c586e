module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16xcomplex<f32>>, %arg1: tensor<2x12xcomplex<f32>>, %arg2: tensor<2x15xf32>, %arg3: tensor<2x9xcomplex<f32>>, %arg4: tensor<6x8xcomplex<f32>>) -> (tensor<2x16xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<2x12xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<2x8xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<2x16xf32> {jax.result_info = "result[3]"}, tensor<6x8xcomplex<f32>> {jax.result_info = "result[4]"}) {
    %0 = call @fft(%arg0) : (tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>>
    %1 = call @fft_0(%arg1) : (tensor<2x12xcomplex<f32>>) -> tensor<2x12xcomplex<f32>>
    %2 = call @fft_1(%arg2) : (tensor<2x15xf32>) -> tensor<2x8xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = call @_pad(%arg3, %c) : (tensor<2x9xcomplex<f32>>, tensor<i32>) -> tensor<2x9xcomplex<f32>>
    %4 = call @fft_2(%3) : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
    %5 = call @fft_3(%arg4) : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>>
    return %0, %1, %2, %4, %5 : tensor<2x16xcomplex<f32>>, tensor<2x12xcomplex<f32>>, tensor<2x8xcomplex<f32>>, tensor<2x16xf32>, tensor<6x8xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [16] : (tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>>
    return %0 : tensor<2x16xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<2x12xcomplex<f32>>) -> tensor<2x12xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [12] : (tensor<2x12xcomplex<f32>>) -> tensor<2x12xcomplex<f32>>
    return %0 : tensor<2x12xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<2x15xf32>) -> tensor<2x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [15] : (tensor<2x15xf32>) -> tensor<2x8xcomplex<f32>>
    return %0 : tensor<2x8xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<2x9xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<2x9xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x9xcomplex<f32>>
    return %1 : tensor<2x9xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16] : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
    return %0 : tensor<2x16xf32>
  }
  func.func private @fft_3(%arg0: tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [6, 8] : (tensor<6x8xcomplex<f32>>) -> tensor<6x8xcomplex<f32>>
    return %0 : tensor<6x8xcomplex<f32>>
  }
}
