// The run record (sim/core/run_record.h): report.json written and read back to the same record,
// one error naming the file and key for anything else, layers.csv and the engines' sums worked by
// hand. The schema file against real reports: Cli.EveryReportValidatesAgainstTheSchema.
#include <random>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/json_text.h"
#include "sim/core/run_record.h"
#include "sim/core/text.h"

namespace npu::test {
namespace {

using sim::RunRecord;

RunRecord full_record() {
    RunRecord r;
    r.command = "regress";
    r.mode = "timed";
    r.platform = {"k210", "board", "p.yaml", {{"kpu_clock_hz", 4e8, "Hz"}}};
    r.program = {"m.kmodel", "kmodel v3", {{"layers", 2, "layers"}}};
    r.inputs = {{"input", "in.npy", {1, 3, 4, 4}, "u8", "raw", "", std::nullopt}};
    r.outputs = {{"output 0", "output_0.npy", {1, 10}, "f32", "", "", std::nullopt}};
    r.dumps = {{"conv", "layer_0.npy", {1, 2}, "u8", "kpu", std::string(64, 'a'), size_t{0}}};
    sim::LayerRecord l{0, "conv, \"1x1\"", "3x4x4 -> 2x4x4 1x1", 96, 16, 1000, 6000, {}, {}, ""};
    l.engines = {{"KPU", 4000, "kpu", 4e8, {{"fetch", 1}, {"compute", 3}}},
                 {"bus and DMA", 1000, "", 0, {}}};
    l.measures = {{"utilization", 0.25, ""}};
    sim::LayerRecord cpu{1, "softmax", "", 0, 0, 6000, 9000, {}, {}, "sm"};
    cpu.engines = {{"CPU", 3000, "cpu", 4e8, {{"work", 1200}}}};
    r.layers = {l, cpu};
    r.totals = {{"macs", 96, "MAC"}, {"inference_ms", 0.008, "ms"}};
    r.checks = {{"max_lsb", 2, "<=", 1, "LSB", false, size_t{0}, "max_error_lsb"},
                {"min_cosine", 0.999, ">=", 0.99, "", true, std::nullopt, ""}};
    r.notes = {"latency: a lower bound"};
    r.tables = {{"fifos",
                 "FIFOs",
                 "each FIFO",
                 {{"name", ""}, {"depth", "words"}},
                 {{std::string("in -> a"), 2.0}, {std::string("a -> out"), 32.0}},
                 ""}};
    r.stats = {{"kpu", {{"layers", {{"value", 1}, {"unit", "layers"}, {"desc", "d"}}}}}};
    r.extra = {{"note", "private"}};
    return r;
}

TEST(RunRecord, WrittenAndReadBackIsTheSameRecord) {
    const RunRecord r = full_record();
    const nlohmann::ordered_json j = sim::to_json(r);
    EXPECT_EQ(j["schema"], "npusim-report/2");
    EXPECT_EQ(j["passed"], false);  // one check failed
    EXPECT_EQ(j["totals"]["macs"]["value"], 96);
    EXPECT_EQ(j["layers"][0]["engines"][0]["parts"]["compute"], 3);
    const RunRecord back = sim::record_from_json(j, "r.json");
    EXPECT_EQ(sim::to_json(back), j);
    EXPECT_FALSE(back.passed());
    ASSERT_NE(back.total("inference_ms"), nullptr);
    EXPECT_EQ(back.total("inference_ms")->unit, "ms");
    EXPECT_EQ(back.total("nothing"), nullptr);
    EXPECT_EQ(j["tables"]["fifos"]["rows"][1]["depth"], 32);
    ASSERT_NE(back.table("fifos"), nullptr);
    EXPECT_EQ(std::get<double>(*back.table("fifos")->cell(1, "depth")), 32.0);
    EXPECT_EQ(std::get<std::string>(*back.table("fifos")->cell(0, "name")), "in -> a");
    EXPECT_EQ(back.table("fifos")->cell(2, "depth"), nullptr);
    EXPECT_EQ(back.notes, r.notes);
}

TEST(RunRecord, AnythingElseIsOneErrorNamingTheKey) {
    nlohmann::ordered_json j = sim::to_json(full_record());
    const auto message = [](const nlohmann::ordered_json& bad) {
        try {
            sim::record_from_json(bad, "d/report.json");
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    auto bad = j;
    bad["schema"] = "npusim-report/1";
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): 'schema' is not "
              "\"npusim-report/2\"");
    bad = j;
    bad["layers"][1]["engines"][0].erase("ps");
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): 'layers[1].engines[0].ps' "
              "is missing");
    bad = j;
    bad["totals"]["macs"]["value"] = "96";
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): 'totals.macs.value' has "
              "the wrong type");
    bad = j;
    bad["tables"]["fifos"]["rows"][0].erase("depth");
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): "
              "'tables.fifos.rows[0].depth' is missing");
    bad = j;
    bad["tables"]["fifos"]["rows"][1]["name"] = true;
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): "
              "'tables.fifos.rows[1].name' is neither a number nor a text");
    bad = j;
    bad["checks"][0]["layer"] = 2u;  // there are two layers
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): 'checks[0].layer' is not "
              "the position of a layer");
    bad = j;
    bad["layers"][0]["macs"] = -1;
    EXPECT_EQ(message(bad),
              "d/report.json: not an npusim report (npusim-report/2): 'layers[0].macs' has the "
              "wrong type");
}

// Random damage to a report (keys removed, values of other types) gives a record or one
// sim::Error, never anything else.
TEST(RunRecord, DamagedReportsAreRecordsOrOneError) {
    const nlohmann::ordered_json good = sim::to_json(full_record());
    const std::string text = good.dump();
    std::mt19937 rng(7);
    const std::vector<nlohmann::ordered_json> values = {nullptr,
                                                        -3,
                                                        1.5,
                                                        "x",
                                                        true,
                                                        nlohmann::ordered_json::array(),
                                                        nlohmann::ordered_json::object()};
    size_t errors = 0;
    for (int n = 0; n < 2000; ++n) {
        nlohmann::ordered_json j = good;
        // Walk to a random place and replace or remove it.
        nlohmann::ordered_json* at = &j;
        while (at->is_structured() && !at->empty() && rng() % 3 != 0) {
            auto it = at->begin();
            std::advance(it, static_cast<long>(rng() % at->size()));
            at = &*it;
        }
        *at = values[rng() % values.size()];
        try {
            (void)sim::record_from_json(j, "r.json");
        } catch (const sim::Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 1000u);  // most damage is found
}

// layers.csv by hand: the fixed columns (a name column as one layer has a name), times in µs, each
// engine's time, each part's cycles (empty where a layer's engines lack it), each measure; text
// with a comma or quote quoted.
TEST(RunRecord, LayersCsvHasEveryEnginePartAndMeasure) {
    EXPECT_EQ(sim::layers_csv(full_record()),
              "index,name,op,shape,macs,param_bytes,start_us,end_us,KPU us,bus and DMA us,CPU "
              "us,KPU fetch cycles,KPU compute cycles,CPU work cycles,utilization\n"
              "0,,\"conv, \"\"1x1\"\"\",3x4x4 -> 2x4x4 1x1,96,16,0.001000,0.006000,0.004000,"
              "0.001000,,1,3,,0.25\n"
              "1,sm,softmax,,0,0,0.006000,0.009000,,,0.003000,,,1200,\n");
    const std::vector<sim::EngineTime> t = sim::engine_totals(full_record());
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].engine, "KPU");
    EXPECT_EQ(t[0].ps, 4000u);
    EXPECT_EQ(t[0].parts[1].cycles, 3u);
    EXPECT_EQ(t[2].parts[0].cycles, 1200u);
}

// A layer named by a file that is not UTF-8 (an ONNX node name with a stray byte): the record is
// written whole, each bad byte as U+FFFD (EF BF BD), where nlohmann's dump() would throw.
TEST(RunRecord, NamesThatAreNotUtf8AreWrittenAsReplacementCharacters) {
    RunRecord r = full_record();
    r.layers[0].name = "conv\xff/relu\xc3";
    const nlohmann::json j = sim::to_json(r);
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
    const std::string text = sim::json_text(j, 2);
    EXPECT_NE(text.find("\"conv\xef\xbf\xbd/relu\xef\xbf\xbd\""), std::string::npos);
    EXPECT_EQ(sim::json_text(nlohmann::json("plain")), "\"plain\"");
    nlohmann::ordered_json ordered;  // the record's keys stay in the order they were written
    ordered["b"] = 1, ordered["a"] = 2;
    EXPECT_EQ(sim::json_text(ordered), R"({"b":1,"a":2})");
}

// valid_utf8 (sim/core/text.h), byte by byte against RFC 3629's table: well-formed sequences
// kept, every byte of an ill-formed one replaced (overlong, surrogate, past U+10FFFF, cut short,
// a stray continuation).
TEST(RunRecord, ValidUtf8KeepsWellFormedTextAndReplacesEveryOtherByte) {
    const std::string r = "\xef\xbf\xbd";  // U+FFFD
    EXPECT_EQ(sim::valid_utf8("plain /a.b_0"), "plain /a.b_0");
    EXPECT_EQ(sim::valid_utf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"),
              "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");  // e-acute, euro, U+1F600,
                                                                        // U+10FFFF
    EXPECT_EQ(sim::valid_utf8("\xc0\xaf"), r + r);                      // overlong '/'
    EXPECT_EQ(sim::valid_utf8("\xe0\x80\xaf"), r + r + r);              // overlong, 3 bytes
    EXPECT_EQ(sim::valid_utf8("\xed\xa0\x80"), r + r + r);              // a surrogate
    EXPECT_EQ(sim::valid_utf8("\xf4\x90\x80\x80"), r + r + r + r);      // past U+10FFFF
    EXPECT_EQ(sim::valid_utf8("a\xe2\x82"), "a" + r + r);               // cut short at the end
    EXPECT_EQ(sim::valid_utf8("\x80x\xff"), r + "x" + r);               // stray bytes
}

}  // namespace
}  // namespace npu::test
