// The "written whole or not at all" promise.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::sim {
namespace {

namespace fs = std::filesystem;

class Files : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("npusim-files-" + std::to_string(::getpid()) + "-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir)) {
            names.push_back(e.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }
    fs::path dir;
};

TEST_F(Files, OutputAppearsOnlyOnCommit) {
    {
        OutputDir out(dir);
        out.write_text("report.json", "{}\n");
        out.write_text("trace.json", "[]\n");
        EXPECT_EQ(listing().size(), 1u);  // only the hidden staging directory
        out.commit();
        EXPECT_EQ(out.files(), (std::vector<std::string>{"report.json", "trace.json"}));
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"report.json", "trace.json"}));
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "{}\n");
}

// A staged folder appears whole at commit, replacing an earlier run's; an empty one does not.
TEST_F(Files, StagedFolderAppearsWholeOnCommit) {
    fs::create_directories(dir / "files");
    write_text_atomic((dir / "files" / "old.txt").string(), "old\n");
    {
        OutputDir out(dir);
        write_text_atomic((out.staged_folder("files") / "a.txt").string(), "a\n");
        out.staged_folder("empty");
        EXPECT_FALSE(fs::exists(dir / "files" / "a.txt"));
        out.commit();
        EXPECT_EQ(out.files(), (std::vector<std::string>{"files/"}));
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"files"}));
    EXPECT_EQ(read_text_file((dir / "files" / "a.txt").string()), "a\n");
    EXPECT_FALSE(fs::exists(dir / "files" / "old.txt"));
}

// A run killed before it committed (kill -9) leaves its staging folder; the next run into the
// same folder removes it, but not a staging folder of a process still alive.
TEST_F(Files, StagingOfAKilledRunIsRemovedByTheNext) {
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);  // a pid that is gone now
    const fs::path stale = dir / (".npusim-staging-" + std::to_string(child));
    const fs::path alive = dir / (".npusim-staging-" + std::to_string(::getppid()));
    fs::create_directories(stale);
    fs::create_directories(alive);
    write_text_atomic((stale / "report.json").string(), "half\n");
    {
        OutputDir out(dir);
        out.commit();
    }
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(alive));
}

// Two outputs of one run with one name: an error, and nothing written (not the second silently
// replacing the first).
TEST_F(Files, AnOutputNamedTwiceIsAnError) {
    try {
        OutputDir out(dir);
        out.write_text("a.json", "1\n");
        out.write_text("a.json", "2\n");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  dir.string() + ": two outputs of this run are named a.json: nothing written");
    }
    EXPECT_FALSE(fs::exists(dir));
}

TEST_F(Files, AbandonedRunLeavesNothing) {
    fs::create_directories(dir);
    write_text_atomic((dir / "report.json").string(), "old\n");
    try {
        OutputDir out(dir);
        out.write_text("report.json", "new\n");
        throw Error("simulated failure");
    } catch (const Error&) {
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"report.json"}));
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "old\n");
}

// A directory the run had to create (with its missing parents) is gone again after a failure;
// one that existed stays, and so does anything another writer put in a created one.
TEST_F(Files, AbandonedRunRemovesTheDirectoriesItCreated) {
    fs::create_directories(dir);
    { OutputDir out(dir / "a" / "b"); }
    EXPECT_TRUE(listing().empty());
    {
        OutputDir out(dir / "c");
        write_text_atomic((dir / "c" / "mine.txt").string(), "kept\n");
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"c"}));
    EXPECT_TRUE(fs::exists(dir / "c" / "mine.txt"));
    {
        OutputDir out(dir / "d");
        out.commit();
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"c", "d"}));
}

TEST_F(Files, OutputDirThatIsAFile) {
    write_text_atomic(dir.string(), "x");
    try {
        OutputDir out(dir);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot create output directory"), std::string::npos);
    }
    fs::remove(dir);
}

TEST_F(Files, AtomicWriteFailureLeavesNoFile) {
    EXPECT_THROW(write_text_atomic((dir / "missing-subdir" / "f").string(), "x"), Error);
    EXPECT_FALSE(fs::exists(dir / "missing-subdir"));
}

}  // namespace
}  // namespace npu::sim
