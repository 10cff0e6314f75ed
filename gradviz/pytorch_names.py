"""PyTorch 2.13's public names that gradviz's engine does not have, per namespace
(written by conformance/api_coverage.py --write; do not edit). ``scripting`` reads it to
tell a script's missing name from a typo."""

MISSING = {
    'torch': frozenset(("adaptive_avg_pool1d adaptive_max_pool1d addbmm addmv addmv_ addr alias_copy alpha_dropout "
        "alpha_dropout_ as_strided as_strided_ as_strided_copy as_strided_scatter asarray "
        "autocast_decrement_nesting autocast_increment_nesting avg_pool1d bartlett_window batch_norm "
        "batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats "
        "batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats bilinear "
        "binary_cross_entropy_with_logits blackman_window block_diag ccol_indices_copy chain_matmul "
        "channel_shuffle choose_qparams_optimized clear_autocast_cache col_indices_copy compile cond "
        "conj_physical conj_physical_ constant_pad_nd conv1d conv2d conv3d conv_tbc conv_transpose1d "
        "conv_transpose2d conv_transpose3d convolution cosine_embedding_loss cosine_similarity cross "
        "crow_indices_copy cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution "
        "cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler "
        "cudnn_is_acceptable cumulative_trapezoid dequantize detach_copy diagonal_copy diagonal_scatter dist "
        "dropout dropout_ dsmm embedding embedding_bag embedding_renorm_ empty_permuted empty_quantized "
        "empty_strided expand_copy fake_quantize_per_channel_affine fake_quantize_per_tensor_affine "
        "fbgemm_linear_fp16_weight fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight "
        "fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight fbgemm_pack_gemm_matrix_fp16 "
        "fbgemm_pack_quantized_matrix feature_alpha_dropout feature_alpha_dropout_ feature_dropout "
        "feature_dropout_ fork frobenius_norm from_file frombuffer fused_moving_avg_obs_fake_quant geqrf "
        "get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_autocast_ipu_dtype "
        "get_autocast_xla_dtype get_deterministic_debug_mode get_device_module get_num_interop_threads "
        "gradient grid_sampler_3d group_norm hamming_window hann_window hash_tensor hinge_embedding_loss "
        "histogram histogramdd hsmm hspmm import_ir_module import_ir_module_from_buffer index_copy index_fill "
        "index_put index_put_ index_reduce indices_copy init_num_threads instance_norm int_repr "
        "is_autocast_cache_enabled is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled "
        "is_autocast_xla_enabled is_distributed is_storage is_vulkan_available is_warn_always_enabled isin "
        "istft kaiser_window kl_div layer_norm lobpcg logcumsumexp logspace margin_ranking_loss "
        "masked_scatter max_pool1d max_pool1d_with_indices max_pool2d max_pool3d merge_type_from_type_comment "
        "miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu "
        "miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn "
        "mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d "
        "mkldnn_max_pool3d mkldnn_rnn_layer mode narrow_copy native_batch_norm native_channel_shuffle "
        "native_dropout native_group_norm native_layer_norm native_norm nonzero_static norm_except_dim "
        "nuclear_norm orgqr ormqr pairwise_distance parse_ir parse_schema parse_type_comment pdist "
        "permute_copy pixel_shuffle pixel_unshuffle poisson_nll_loss q_per_channel_axis q_per_channel_scales "
        "q_per_channel_zero_points q_scale q_zero_point quantize_per_channel quantize_per_tensor "
        "quantize_per_tensor_dynamic quantized_batch_norm quantized_gru_cell quantized_lstm_cell "
        "quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell "
        "quantized_rnn_tanh_cell range renorm resize_as_sparse_ rms_norm row_indices_copy saddmm "
        "scatter_reduce select_copy select_scatter set_autocast_cache_enabled set_autocast_cpu_dtype "
        "set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled set_autocast_gpu_dtype "
        "set_autocast_ipu_dtype set_autocast_ipu_enabled set_autocast_xla_dtype set_autocast_xla_enabled "
        "set_default_device set_default_tensor_type set_deterministic_debug_mode set_flush_denormal "
        "set_num_interop_threads set_warn_always slice_copy slice_inverse slice_scatter smm sparse_bsc_tensor "
        "sparse_bsr_tensor sparse_compressed_tensor sparse_coo_tensor sparse_csc_tensor sparse_csr_tensor "
        "split_copy split_with_sizes_copy spmm squeeze_copy sspaddmm stft sym_constrain_range "
        "sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite sym_max sym_min sym_not "
        "sym_sqrt sym_sum t_copy thread_safe_generator transpose_copy trapezoid trapz triplet_margin_loss "
        "typename unbind_copy unfold_copy unify_type_list unsafe_chunk unsafe_split unsafe_split_with_sizes "
        "unsqueeze_copy values_copy view_as_complex_copy view_as_real_copy view_copy wait ").split()),
    'torch.Tensor': frozenset(("addbmm addbmm_ addmm_ addmv addmv_ addr addr_ as_strided as_strided_ as_strided_scatter as_subclass "
        "baddbmm baddbmm_ ccol_indices chalf coalesce col_indices conj_physical conj_physical_ const_data_ptr "
        "cross crow_indices dense_dim dequantize diagonal_scatter dist erfinv_ fill_diagonal_ geqrf "
        "grad_dtype hash_tensor histogram igamma_ igammac_ index index_copy index_copy_ index_fill "
        "index_fill_ index_put index_put_ index_reduce index_reduce_ indices int_repr ipu is_coalesced "
        "is_distributed is_ipu is_maia is_mkldnn is_mps is_mtia is_nested is_pinned is_quantized is_shared "
        "is_sparse is_sparse_csr is_vulkan is_xla is_xpu istft layout logcumsumexp masked_scatter "
        "masked_scatter_ mode module_load mtia name narrow_copy nonzero_static orgqr ormqr pin_memory "
        "q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qscheme "
        "record_stream reinforce renorm renorm_ resize resize_as resize_as_sparse_ row_indices scatter_reduce "
        "scatter_reduce_ select_scatter set_ share_memory_ slice_inverse slice_scatter smm sparse_dim "
        "sparse_mask sparse_resize_ sparse_resize_and_clear_ sspaddmm stft storage_type to_dense to_mkldnn "
        "to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr "
        "unfold unsafe_chunk unsafe_split unsafe_split_with_sizes values volatile xpu ").split()),
    'torch.nn': frozenset(("AdaptiveLogSoftmaxWithLoss Container CrossMapLRN2d FractionalMaxPool2d FractionalMaxPool3d "
        "LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d "
        "LazyConvTranspose2d LazyConvTranspose3d LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d "
        "LazyLinear LinearCrossEntropyLoss LinearCrossEntropyOptions LocalResponseNorm "
        "MultiLabelSoftMarginLoss ").split()),
    'torch.nn.functional': frozenset(("assert_int_or_pair boolean_dispatch conv_tbc fractional_max_pool2d "
        "fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices "
        "grouped_mm handle_torch_function has_torch_function has_torch_function_unary "
        "has_torch_function_variadic linear_cross_entropy local_response_norm multilabel_soft_margin_loss "
        "native_channel_shuffle pdist scaled_grouped_mm scaled_mm ").split()),
    'torch.nn.init': frozenset((" ").split()),
    'torch.nn.utils': frozenset(("convert_conv2d_weight_memory_format convert_conv3d_weight_memory_format ").split()),
    'torch.optim': frozenset(("Muon swap_in_optimizer_params_and_state ").split()),
    'torch.optim.lr_scheduler': frozenset((" ").split()),
    'torch.linalg': frozenset(("householder_product ldl_factor ldl_factor_ex ldl_solve ").split()),
    'torch.distributions': frozenset(("Wishart ").split()),
    'torch.special': frozenset((" ").split()),
    'torch.autograd': frozenset((" ").split()),
    'torch.func': frozenset(("rearrange ").split()),
}
