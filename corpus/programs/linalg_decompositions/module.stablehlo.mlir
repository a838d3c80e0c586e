module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<5x2xf32>, %arg2: tensor<6x4xf32>, %arg3: tensor<5x5xf32>) -> (tensor<5x2xf32> {jax.result_info = "result[0]"}, tensor<6x4xf32> {jax.result_info = "result[1]"}, tensor<4x4xf32> {jax.result_info = "result[2]"}, tensor<5xf32> {jax.result_info = "result[3]"}, tensor<5x5xf32> {jax.result_info = "result[4]"}, tensor<6x4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<4x4xf32> {jax.result_info = "result[7]"}) {
    %0:2 = call @qr(%arg2) : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4x4xf32>)
    %1:2 = call @eigh(%arg3) : (tensor<5x5xf32>) -> (tensor<5xf32>, tensor<5x5xf32>)
    %2:3 = call @svd(%arg2) : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>)
    %3 = call @solve(%arg0, %arg1) : (tensor<5x5xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
    return %3, %0#0, %0#1, %1#0, %1#1, %2#0, %2#1, %2#2 : tensor<5x2xf32>, tensor<6x4xf32>, tensor<4x4xf32>, tensor<5xf32>, tensor<5x5xf32>, tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @qr(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4x4xf32>) {
    %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=6, j=4, k=6, l=4, m=4}, custom>} : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>)
    %1 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=6, j=4, k=4, l=6, m=4}, custom>} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
    %2 = stablehlo.slice %0#0 [0:4, 0:4] : (tensor<6x4xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %5 = stablehlo.add %3, %4 : tensor<4x4xi32>
    %6 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %9 = stablehlo.select %7, %8, %2 : tensor<4x4xi1>, tensor<4x4xf32>
    return %1, %9 : tensor<6x4xf32>, tensor<4x4xf32>
  }
  func.func private @eigh(%arg0: tensor<5x5xf32>) -> (tensor<5xf32>, tensor<5x5xf32>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<5x5xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %3 = stablehlo.divide %1, %2 : tensor<5x5xf32>
    %4:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%3) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<5x5xi1>, tensor<5x5xf32>
    %11 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %14 = stablehlo.select %13, %4#1, %12 : tensor<5xi1>, tensor<5xf32>
    return %14, %10 : tensor<5xf32>, tensor<5x5xf32>
  }
  func.func private @svd(%arg0: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>) {
    %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=6, j=4, k=6, l=4, m=4, n=6, o=4, p=4, q=4}, custom>} : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<6x4xf32>, tensor<4x4xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<4xi1>, tensor<4xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<6x4xi1>, tensor<6x4xf32>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<4x4xi1>, tensor<4x4xf32>
    return %10, %6, %14 : tensor<6x4xf32>, tensor<4xf32>, tensor<4x4xf32>
  }
  func.func private @solve(%arg0: tensor<5x5xf32>, %arg1: tensor<5x2xf32>) -> tensor<5x2xf32> {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5xi32>, tensor<i32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<5xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<5x5xi1>, tensor<5x5xf32>
    %9 = stablehlo.iota dim = 0 : tensor<5xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_3 = %c_2, %iterArg_4 = %c_1, %iterArg_5 = %9) : tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5xi32>
    cond {
      %c_6 = stablehlo.constant dense<5> : tensor<i32>
      %14 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call(%iterArg, %iterArg_4, %iterArg_5) : (tensor<5xi32>, tensor<i32>, tensor<5xi32>) -> (tensor<i32>, tensor<5xi32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %15 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<5x2xf32>) -> tensor<2x5xf32>
    %12 = call @_lu_solve(%8, %10#3, %11) : (tensor<5x5xf32>, tensor<5xi32>, tensor<2x5xf32>) -> tensor<2x5xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<2x5xf32>) -> tensor<5x2xf32>
    return %13 : tensor<5x2xf32>
  }
  func.func private @closed_call(%arg0: tensor<5xi32>, %arg1: tensor<i32>, %arg2: tensor<5xi32>) -> (tensor<i32>, tensor<5xi32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i32>
    %c_1 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.add %2, %c_1 : tensor<i32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i32>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i32>
    %c_3 = stablehlo.constant dense<5> : tensor<i32>
    %9 = stablehlo.add %8, %c_3 : tensor<i32>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i32>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<5> : tensor<i32>
    %14 = stablehlo.add %6, %c_5 : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %18 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<5> : tensor<i32>
    %19 = stablehlo.add %arg1, %c_7 : tensor<i32>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i32>
    %21 = stablehlo.convert %20 : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<5xi32>, tensor<1xi32>, tensor<i32>) -> tensor<5xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.compare LT, %6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<5> : tensor<i32>
    %25 = stablehlo.add %6, %c_9 : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<5xi32>, tensor<1xi32>, tensor<i32>) -> tensor<5xi32>
    return %0, %28 : tensor<i32>, tensor<5xi32>
  }
  func.func private @_lu_solve(%arg0: tensor<5x5xf32>, %arg1: tensor<5xi32>, %arg2: tensor<2x5xf32>) -> tensor<2x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<2x5xf32>) -> tensor<2x5x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<5xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<5xi1>, tensor<5xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 1>}> : (tensor<2x5x1xf32>, tensor<5x1xi32>) -> tensor<2x5x1xf32>
    %8 = stablehlo.transpose %7, dims = [1, 2, 0] : (tensor<2x5x1xf32>) -> tensor<5x1x2xf32>
    %9 = stablehlo.reshape %8 : (tensor<5x1x2xf32>) -> tensor<5x2xf32>
    %10 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %9) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=5, j=5, k=5, l=2, m=5, n=2}, custom>} : (tensor<5x5xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
    %11 = stablehlo.reshape %10 : (tensor<5x2xf32>) -> tensor<5x1x2xf32>
    %12 = stablehlo.reshape %11 : (tensor<5x1x2xf32>) -> tensor<5x2xf32>
    %13 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %12) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=5, j=5, k=5, l=2, m=5, n=2}, custom>} : (tensor<5x5xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
    %14 = stablehlo.reshape %13 : (tensor<5x2xf32>) -> tensor<5x1x2xf32>
    %15 = stablehlo.transpose %14, dims = [2, 0, 1] : (tensor<5x1x2xf32>) -> tensor<2x5x1xf32>
    %16 = stablehlo.reshape %15 : (tensor<2x5x1xf32>) -> tensor<2x5xf32>
    return %16 : tensor<2x5xf32>
  }
}
