// _npusim: the compiled half of the Python package (python/npusim). It calls the platform face
// in this process for what needs no SystemC kernel (functional runs); the package runs the rest
// through the npusim program (SystemC elaborates once per process). docs/python.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "app/app.h"
#include "app/platform_loader.h"
#include "platforms/common/platform_face.h"
#include "sim/core/error.h"
#include "sim/core/run_record.h"

namespace py = pybind11;

namespace {

// A loaded platform (a YAML file, or the built-in k210.yaml), with --set settings.
class PyPlatform {
public:
    PyPlatform(const std::string& config, const std::vector<std::string>& settings)
        : m_platform(npu::app::load_platform(config, settings)) {}

    std::string kind() const { return m_platform->kind(); }
    std::string source() const { return m_platform->source(); }

    // A values-only run (RunRequest::functional) of `model` on the input file `input`:
    // {text, record (report.json's text), files {name: bytes}, passed}. sim::Error becomes
    // npusim.Error with its message, as the program prints it.
    py::dict run_functional(const std::string& model, const std::string& input, bool dump_all) {
        npu::platform::RunRequest req;
        req.model = model;
        req.input = input;
        req.functional = true;
        req.to_files = true;
        req.dump_all = dump_all;
        npu::platform::RunReport rep;
        {
            py::gil_scoped_release release;
            rep = m_platform->run(req);
        }
        if (!rep.error.empty()) {
            throw npu::sim::Error(rep.error);
        }
        py::dict files;
        for (const auto* list : {&rep.files, &rep.files_after}) {
            for (const npu::platform::OutputFile& f : *list) {
                files[py::str(f.name)] = py::bytes(reinterpret_cast<const char*>(f.bytes.data()),
                                                   static_cast<py::ssize_t>(f.bytes.size()));
            }
        }
        py::dict out;
        out["text"] = rep.text;
        out["passed"] = rep.passed;
        out["files"] = files;
        if (rep.record) {
            npu::sim::RunRecord rec = *rep.record;
            rec.command = "run";
            out["record"] = npu::sim::to_json(rec).dump();
        } else {
            out["record"] = py::none();
        }
        return out;
    }

private:
    std::unique_ptr<npu::platform::Platform> m_platform;
};

}  // namespace

// libsystemc refers to the program's sc_main; the module elaborates no design (timed runs go to
// the npusim program), so it has one that is never called.
extern "C" __attribute__((visibility("default"))) int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 0;
}

PYBIND11_MODULE(_npusim, m) {
    m.doc() = "npusim's compiled half: platforms and functional runs in this process";
    py::register_exception<npu::sim::Error>(m, "Error", PyExc_RuntimeError);
    m.def("version", &npu::app::version, "npusim's version");
    m.def(
        "cli_path", [] { return std::string(NPUSIM_CLI_PATH); },
        "the npusim program this module was built with");
    py::class_<PyPlatform>(m, "Platform")
        .def(py::init<const std::string&, const std::vector<std::string>&>(),
             py::arg("config") = "", py::arg("settings") = std::vector<std::string>())
        .def_property_readonly("kind", &PyPlatform::kind)
        .def_property_readonly("source", &PyPlatform::source)
        .def("run_functional", &PyPlatform::run_functional, py::arg("model"), py::arg("input"),
             py::arg("dump_all") = false);
}
