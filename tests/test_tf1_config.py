"""TF1's session messages (``ConfigProto``, ``GPUOptions``, ``RunOptions``,
``RunMetadata``): built as TF1 programs build them, printed in protobuf's text format as
TensorFlow 2.21 prints them, accepted by a Session."""

import pytest

import symgrad as tf

v1 = tf.compat.v1


def test_a_config_as_tf1_programs_build_it() -> None:
    c = v1.ConfigProto(allow_soft_placement=True, device_count={"GPU": 0})
    c.gpu_options.allow_growth = True
    c.gpu_options.per_process_gpu_memory_fraction = 0.5
    c.intra_op_parallelism_threads = 2
    c.graph_options.optimizer_options.global_jit_level = v1.OptimizerOptions.ON_1
    assert str(c) == (
        'device_count {\n  key: "GPU"\n  value: 0\n}\nintra_op_parallelism_threads: 2\n'
        "gpu_options {\n  per_process_gpu_memory_fraction: 0.5\n  allow_growth: true\n}\n"
        "allow_soft_placement: true\n"
        "graph_options {\n  optimizer_options {\n    global_jit_level: ON_1\n  }\n}\n"
    )
    fields = (c.log_device_placement, c.gpu_options.allow_growth, c.inter_op_parallelism_threads)
    assert fields == (False, True, 0) and dict(c.device_count) == {"GPU": 0}
    assert str(v1.ConfigProto()) == ""
    nested = v1.ConfigProto(gpu_options=v1.GPUOptions(allow_growth=True))
    assert str(nested) == "gpu_options {\n  allow_growth: true\n}\n"
    assert v1.GPUOptions(allow_growth=True) == v1.GPUOptions(allow_growth=True)
    with pytest.raises(ValueError, match='Protocol message ConfigProto has no "foo" field.'):
        v1.ConfigProto(foo=1)
    with pytest.raises(AttributeError, match='Protocol message ConfigProto has no "foo" field.'):
        c.foo = 1


def test_a_session_takes_them() -> None:
    trace = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
    assert (v1.RunOptions.FULL_TRACE, str(trace)) == (3, "trace_level: FULL_TRACE\n")
    config = v1.ConfigProto(gpu_options=v1.GPUOptions(allow_growth=True))
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        with v1.Session(config=config) as sess:
            assert sess.run(x * 2, options=trace, run_metadata=v1.RunMetadata()) == 4.0
