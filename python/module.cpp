// _npusim: the compiled half of the Python package (python/npusim). It calls the platform face
// in this process for what needs no SystemC kernel (functional runs); the package runs the rest
// through the npusim program (SystemC elaborates once per process). docs/python.md.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "app/app.h"
#include "app/platform_loader.h"
#include "platforms/common/platform_face.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"
#include "sim/core/run_record.h"

namespace py = pybind11;

namespace {

// Text for Python: the program's text and messages hold names from the user's files (ONNX node
// names...), which need not be UTF-8; each invalid byte becomes U+FFFD, as in the JSON records
// (sim/core/json_text.h), instead of a UnicodeDecodeError in place of the result.
py::str text(const std::string& s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "replace");
    if (o == nullptr) {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::str>(o);
}

// A file's bytes as a uint8 numpy array over the same memory: the vector moves into a capsule
// that the array keeps alive, so outputs reach Python without a copy.
py::array_t<uint8_t> as_array(std::vector<uint8_t>&& bytes) {
    auto owned = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
    py::capsule owner(owned.get(), [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
    const std::vector<uint8_t>* held = owned.release();  // the capsule frees it from here on
    return py::array_t<uint8_t>(static_cast<py::ssize_t>(held->size()), held->data(), owner);
}

// A report as the package reads it: {text, passed, files {name: uint8 array}, record
// (report.json's text, or None)}; a returned error raises npusim.Error. The files' bytes move.
py::dict report_dict(npu::platform::RunReport&& rep, const char* command) {
    if (!rep.error.empty()) {
        throw npu::sim::Error(rep.error);
    }
    py::dict files;
    for (auto* list : {&rep.files, &rep.files_after}) {
        for (npu::platform::OutputFile& f : *list) {
            files[py::str(f.name)] = as_array(std::move(f.bytes));
        }
    }
    py::dict out;
    out["text"] = text(rep.text);
    out["passed"] = rep.passed;
    out["files"] = files;
    out["record"] = py::none();
    if (rep.record) {
        npu::sim::RunRecord rec = *rep.record;
        rec.command = command;
        out["record"] = npu::sim::json_text(npu::sim::to_json(rec));
    }
    return out;
}

// A loaded platform (a YAML file, or the built-in k210.yaml), with --set settings.
class PyPlatform {
public:
    PyPlatform(const std::string& config, const std::vector<std::string>& settings)
        : m_platform(npu::app::load_platform(config, settings)) {}

    std::string kind() const { return m_platform->kind(); }
    std::string source() const { return m_platform->source(); }

    // A values-only run (RunRequest::functional) of `model` on the input file `input`. sim::Error
    // becomes npusim.Error with its message, as the program prints it.
    py::dict run_functional(const std::string& model, const std::string& network,
                            const std::string& input, bool dump_all,
                            const std::map<std::string, std::string>& options) {
        npu::platform::RunRequest req;
        req.model = model;
        req.network = network;
        req.input = input;
        req.option = {options};
        npu::app::check_platform_options(*m_platform, req.option);
        req.functional = true;
        req.to_files = true;
        req.dump_all = dump_all;
        npu::platform::RunReport rep;
        {
            py::gil_scoped_release release;
            rep = m_platform->run(req);
        }
        return report_dict(std::move(rep), "run");
    }

    // The options a command was given, checked as the program checks them (npusim.Error naming
    // the first this platform does not take) before a run of the program.
    void check_options(const std::map<std::string, std::string>& options) const {
        npu::app::check_platform_options(*m_platform, {options});
    }

    // `npusim estimate --layers FILE | --model FILE` (the cost functions, no simulation).
    py::dict estimate(const std::string& layers, const std::string& model,
                      const std::map<std::string, std::string>& options) {
        npu::platform::EstimateRequest req{layers, model, true, {options}};
        npu::app::check_platform_options(*m_platform, req.option);  // one it does not declare
        npu::platform::EstimateReport rep;
        {
            py::gil_scoped_release release;
            rep = m_platform->estimate(req);
        }
        npu::platform::RunReport as_run;
        as_run.text = rep.text;
        as_run.files = std::move(rep.files);
        as_run.record = rep.record;
        py::dict out = report_dict(std::move(as_run), "estimate");
        out["note"] = text(rep.note);
        return out;
    }

    // `npusim regress` without --timed (a timed one elaborates SystemC: the package runs the
    // program for it).
    py::dict regress(const npu::app::RegressOptions& opts) {
        npu::platform::RunReport rep;
        {
            py::gil_scoped_release release;
            rep = m_platform->regress(npu::app::regress_request(opts));
        }
        return report_dict(std::move(rep), "regress");
    }

private:
    std::unique_ptr<npu::platform::Platform> m_platform;
};

// `npusim compile`: the program and its report written (each whole), the text returned.
py::str compile(const std::string& onnx, const std::string& calibrate, const std::string& output,
                const std::string& target, const std::string& kmodel_version,
                const std::vector<double>& mean, const std::vector<double>& std, double scale,
                const std::string& channel_order) {
    npu::app::CompileOptions o;
    o.target = target, o.onnx = onnx, o.calibrate = calibrate, o.output = output;
    o.kmodel_version = kmodel_version, o.mean = mean, o.std = std, o.scale = scale;
    o.channel_order = channel_order;
    std::string said;
    {
        py::gil_scoped_release release;
        const npu::platform::CompileReport r = npu::app::compile_model(o);
        for (const auto& [path, bytes] : r.files) {
            npu::sim::write_file_atomic(path, bytes);
        }
        said = r.text;
    }
    return text(said);
}

// `npusim infer`: the float reference evaluator on one .npy per graph input.
py::dict infer(const std::string& onnx, const std::vector<std::string>& inputs, bool dump_all) {
    npu::app::InferOptions o;
    o.onnx = onnx, o.inputs = inputs, o.dump_all = dump_all;
    npu::platform::RunReport rep;
    {
        py::gil_scoped_release release;
        rep = npu::app::infer_report(o);
    }
    return report_dict(std::move(rep), "infer");
}

// `npusim layout to-npu | to-onnx`: `input` to `output` (written whole); the text.
py::str layout(const std::string& action, const std::string& layout, const std::string& shape,
               const std::string& input, const std::string& output, const std::string& scale,
               const std::string& radix, int axis, const std::string& stride_npu, bool fixed) {
    npu::kl730::LayoutRequest r;
    r.action = action, r.layout = layout, r.shape = shape, r.scale = scale, r.radix = radix;
    r.axis = axis, r.stride_npu = stride_npu, r.in = input, r.out = output, r.fixed = fixed;
    return text(npu::kl730::run_layout_tool(r));
}

}  // namespace

// libsystemc refers to the program's sc_main; the module elaborates no design (timed runs go to
// the npusim program), so it has one that is never called.
extern "C" __attribute__((visibility("default"))) int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 0;
}

namespace {

// npusim.Error with the program's message (its names decoded as text() does).
void bind_errors(py::module_& m) {
    static py::exception<npu::sim::Error> error(m, "Error", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) {
                std::rethrow_exception(p);
            }
        } catch (const npu::sim::Error& e) {
            PyErr_SetObject(error.ptr(), text(e.what()).ptr());
        }
    });
}

// What the package asks of the program: its version, path and platform options.
void bind_program(py::module_& m) {
    m.def("version", &npu::app::version, "npusim's version");
    m.def("platform_arg_problem", &npu::app::platform_arg_problem,
          "what is wrong with a --platform value, as the program says it; '' when nothing");
    m.def(
        "flag_options",
        [] {
            std::vector<std::string> flags;
            for (const npu::platform::PlatformKind& k : npu::platform::platform_kinds()) {
                for (const npu::platform::PlatformOption& o : k.options) {
                    if (o.flag) {
                        flags.push_back(o.name);
                    }
                }
            }
            return flags;
        },
        "the platform options that take no value (--size-fifos ...)");
    m.def(
        "cli_path", [] { return std::string(NPUSIM_CLI_PATH); },
        "the npusim program this module was built with");
}

void bind_regress_options(py::module_& m) {
    py::class_<npu::app::RegressOptions>(m, "RegressOptions")
        .def(py::init<>())
        .def_readwrite("onnx", &npu::app::RegressOptions::onnx)
        .def_readwrite("model", &npu::app::RegressOptions::model)
        .def_readwrite("report", &npu::app::RegressOptions::report)
        .def_readwrite("inputs", &npu::app::RegressOptions::inputs)
        .def_readwrite("labels", &npu::app::RegressOptions::labels)
        .def_readwrite("tolerances", &npu::app::RegressOptions::tolerances)
        .def_readwrite("max_lsb", &npu::app::RegressOptions::max_lsb)
        .def_readwrite("min_cosine", &npu::app::RegressOptions::min_cosine)
        .def_readwrite("min_top1", &npu::app::RegressOptions::min_top1)
        .def_readwrite("preprocess", &npu::app::RegressOptions::preprocess)
        .def_readwrite("mean", &npu::app::RegressOptions::mean)
        .def_readwrite("std", &npu::app::RegressOptions::std)
        .def_readwrite("scale", &npu::app::RegressOptions::scale)
        .def_readwrite("channel_order", &npu::app::RegressOptions::channel_order)
        .def_readwrite("layout", &npu::app::RegressOptions::layout);
}

// The commands the package runs in this process, and the platform face.
void bind_commands(py::module_& m) {
    m.def("compile", &compile, "npusim compile: writes the program and its report; the text",
          py::arg("onnx"), py::arg("calibrate"), py::arg("output"), py::arg("target") = "k210",
          py::arg("kmodel_version") = "auto", py::arg("mean") = std::vector<double>(),
          py::arg("std") = std::vector<double>(), py::arg("scale") = -1.0,
          py::arg("channel_order") = "");
    m.def("infer", &infer, "npusim infer: the float reference's outputs", py::arg("onnx"),
          py::arg("inputs"), py::arg("dump_all") = false);
    m.def("layout", &layout, "npusim layout to-npu | to-onnx between files; the text",
          py::arg("action"), py::arg("layout"), py::arg("shape"), py::arg("input"),
          py::arg("output"), py::arg("scale") = "1", py::arg("radix") = "0", py::arg("axis") = -1,
          py::arg("stride_npu") = "", py::arg("fixed") = false);
    py::class_<PyPlatform>(m, "Platform")
        .def(py::init<const std::string&, const std::vector<std::string>&>(),
             py::arg("config") = "", py::arg("settings") = std::vector<std::string>())
        .def_property_readonly("kind", &PyPlatform::kind)
        .def_property_readonly("source", &PyPlatform::source)
        .def("run_functional", &PyPlatform::run_functional, py::arg("model"), py::arg("network"),
             py::arg("input"), py::arg("dump_all"), py::arg("options"))
        .def("estimate", &PyPlatform::estimate, py::arg("layers"), py::arg("model"),
             py::arg("options"))
        .def("regress", &PyPlatform::regress, py::arg("options"))
        .def("check_options", &PyPlatform::check_options, py::arg("options"));
}

}  // namespace

PYBIND11_MODULE(_npusim, m) {
    m.doc() = "npusim's compiled half: platforms and functional runs in this process";
    bind_errors(m);
    bind_program(m);
    bind_regress_options(m);
    bind_commands(m);
}
