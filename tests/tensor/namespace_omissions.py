"""What taimatsu deliberately lacks of PyTorch's public namespaces, and why (read by
test_namespace_coverage.py). Per namespace: reason -> the names it covers, space-separated.

"not implemented yet" marks real gaps a later issue may close; the other reasons are parts of
PyTorch that a pure-Python NumPy/CuPy library has no counterpart for.
"""

_TODO = "not implemented yet"
_QUANT = "quantized tensors and their kernels (torch.ao): not in taimatsu's scope"
_DTYPES = "sub-byte, bit and float8 dtypes: NumPy has no arithmetic for them"

OMITTED: dict[str, dict[str, str]] = {
    "torch": {
        "TorchScript, its IR and type system (taimatsu has no compiler)": """
            AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType BufferDict CallStack Capsule
            ClassType Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType
            ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType DictType EnumType ErrorReport
            ExecutionPlan FileCheck FloatType FunctionSchema FutureType Gradient Graph
            GraphExecutorState IODescriptor InferredType IntType InterfaceType JITException ListType
            LiteScriptModule ModuleDict Node NoneType NumberType OperatorInfo OptionalType ParameterDict
            PyObjectType RRefType ScriptClass ScriptClassFunction ScriptDict ScriptDictIterator
            ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator ScriptMethod ScriptModule
            ScriptModuleSerializer ScriptObject ScriptObjectProperty StaticModule StreamObjType
            StringType SymBoolType SymIntType TensorType TracingState TupleType Type UnionType Use Value
            classes cpp fork import_ir_module import_ir_module_from_buffer
            merge_type_from_type_comment parse_ir parse_schema parse_type_comment unify_type_list wait""",
        "the C++ dispatcher's keys, tags and __torch_function__ guards": """
            DispatchKey DispatchKeySet DisableTorchFunction DisableTorchFunctionSubclass
            ExcludeDispatchKeyGuard PRIVATE_OPS Tag overrides library""",
        "C++ logging, monitoring and benchmarking utilities": """
            AVG SUM AggregationType LockingLogger LoggerBase NoopLogger monitor ThroughputBenchmark
            BenchmarkConfig BenchmarkExecutionStats""",
        "the C++ zip reader/writer of the serializer (taimatsu reads and writes the format in Python)": """
            PyTorchFileReader PyTorchFileWriter DeserializationStorageContext
            SerializationStorageContext""",
        "storage internals and the default-type alias": """
            Storage StorageBase""",
        _QUANT: """
            QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage
            ao choose_qparams_optimized dequantize empty_quantized fake_quantize_per_channel_affine
            fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight
            fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
            fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight
            fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix fused_moving_avg_obs_fake_quant
            int_repr per_channel_affine per_channel_affine_float_qparams per_channel_symmetric
            per_tensor_affine per_tensor_symmetric q_per_channel_axis q_per_channel_scales
            q_per_channel_zero_points q_scale q_zero_point qint32 qint8 qscheme quantization
            quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic quantized_batch_norm
            quantized_gru quantized_gru_cell quantized_lstm quantized_lstm_cell quantized_max_pool1d
            quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell quantized_rnn_tanh_cell
            quint2x4 quint4x2 quint8""",
        "vendor kernels (cuDNN, MIOpen, oneDNN) and their availability queries": """
            cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu
            cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable
            miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu
            miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn
            mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights
            mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer is_vulkan_available""",
        _DTYPES: """
            bit bits16 bits1x8 bits2x4 bits4x2 bits8 complex32 chalf float4_e2m1fn_x2 float8_e4m3fn
            float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int1 int2 int3 int4 int5 int6
            int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7""",
        "ATen kernels behind nn.functional / SyncBatchNorm, not spelled as torch.* names": """
            batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt
            batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats
            batch_norm_update_stats native_batch_norm native_dropout native_group_norm
            native_layer_norm native_norm convolution embedding_renorm_""",
        "removed from PyTorch (calling them raises there)": "lstsq matrix_rank solve symeig",
        "sparse-only kernels": """
            ccol_indices_copy col_indices_copy crow_indices_copy
            indices_copy row_indices_copy values_copy resize_as_sparse_ saddmm dsmm hsmm""",
        "nested (jagged) tensors": "nested jagged",
        "autocast and devices of accelerators taimatsu has no backend for (IPU, XLA, MTIA, XPU, MPS)": """
            get_autocast_ipu_dtype get_autocast_xla_dtype is_autocast_ipu_enabled
            is_autocast_xla_enabled set_autocast_ipu_dtype set_autocast_ipu_enabled
            set_autocast_xla_dtype set_autocast_xla_enabled mtia xpu mps""",
        "torch.export's symbolic-shape constraints": """
            sym_constrain_range sym_constrain_range_for_size sym_fresh_size export""",
        "build and process-setup facts of the C++ library": """
            USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH compiled_with_cxx11_abi has_lapack has_mkl
            has_openmp has_spectral init_num_threads prepare_multiprocessing_environment
            profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 get_file_path""",
        "subpackages: " + _TODO: "package",
        _TODO: """
            Event Stream FatalError SymBool SymFloat
            SymInt classproperty lobpcg slice_inverse
            thread_safe_generator""",
    },
    "Tensor": {
        _QUANT: """
            dequantize int_repr q_per_channel_axis q_per_channel_scales q_per_channel_zero_points
            q_scale q_zero_point qscheme""",
        "removed or deprecated in PyTorch (calling them raises or warns there)": """
            eig lstsq solve symeig reinforce volatile""",
        "devices and allocator streams taimatsu has no backend for": "ipu mtia xpu to_mkldnn record_stream",
        "sparse-only methods": """
            sparse_resize_
            sparse_resize_and_clear_ resize_as_sparse_""",
        _DTYPES: "chalf",
        "nested tensors": "to_padded_tensor",
        _TODO: """
            grad_dtype index module_load name slice_inverse""",
    },
    "nn.functional": {
        "PyTorch's internal helpers imported into the namespace": """
            BroadcastingList1 BroadcastingList2 BroadcastingList3 DType boolean_dispatch
            handle_torch_function has_torch_function has_torch_function_unary
            has_torch_function_variadic assert_int_or_pair grad""",
        "scaled (float8) and grouped GEMM kernels for CUDA": """
            ScalingType SwizzleType grouped_mm scaled_mm scaled_grouped_mm""",
    },
    "masked": {
        "the prototype MaskedTensor: PyTorch routes torch.* calls to it through "
        "__torch_function__/__torch_dispatch__, which taimatsu has not": """
            MaskedTensor as_masked_tensor is_masked_tensor masked_tensor maskedtensor""",
    },
    "functional": {
        "PyTorch's internal helpers imported into the module": """
            F boolean_dispatch handle_torch_function has_torch_function has_torch_function_unary
            has_torch_function_variadic overload""",
    },
    "types": {
        "symbolic ints/floats/bools and the aliases built on them (torch.SymInt...): " + _TODO: """
            SymBool SymFloat SymInt BoolLikeType FloatLikeType IntLikeType PySymType py_sym_types""",
        "the C++ dispatcher's keys": "DispatchKey",
    },
    "linalg": {},
    "fft": {},
    "special": {},
}
