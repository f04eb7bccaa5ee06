// The "written whole or not at all" promise.
#include <algorithm>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/signal_cleanup.h"

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
    EXPECT_EQ(listing(),
              (std::vector<std::string>{".npusim-outputs", "report.json", "trace.json"}));
    EXPECT_EQ(read_text_file((dir / ".npusim-outputs").string()), "report.json\ntrace.json\n");
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "{}\n");
}

// A staged folder appears whole at commit, replacing an earlier run's; an empty one does not.
TEST_F(Files, StagedFolderAppearsWholeOnCommit) {
    {
        OutputDir earlier(dir);
        write_text_atomic((earlier.staged_folder("files") / "old.txt").string(), "old\n");
        earlier.commit();
    }
    {
        OutputDir out(dir);
        write_text_atomic((out.staged_folder("files") / "a.txt").string(), "a\n");
        out.staged_folder("empty");
        EXPECT_FALSE(fs::exists(dir / "files" / "a.txt"));
        out.commit();
        EXPECT_EQ(out.files(), (std::vector<std::string>{"files/"}));
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{".npusim-outputs", "files"}));
    EXPECT_EQ(read_text_file((dir / "files" / "a.txt").string()), "a\n");
    EXPECT_FALSE(fs::exists(dir / "files" / "old.txt"));
}

// A process that gets SIGINT before its commit: the handler removes the staging folder (files and
// a folder in it) and the folders the run created, then the signal ends the process. One that
// gets SIGTERM after its commit keeps its outputs. Without install_signal_cleanup() both would
// leave a staging folder.
TEST_F(Files, ASignalBeforeTheCommitLeavesNothingAfterItTheOutputs) {
    const auto child = [](const std::function<void()>& body, int sig) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            install_signal_cleanup();
            body();
            ::raise(sig);
            ::_exit(0);  // not reached when the signal ends the process
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
    };
    const fs::path fresh = dir / "a" / "b";
    EXPECT_EQ(child(
                  [&] {
                      auto* out = new OutputDir(fresh);  // never destroyed: the signal comes first
                      write_text_atomic(out->staged("x.txt").string(), "x");
                      write_text_atomic((out->staged_folder("frames") / "f0.txt").string(), "f");
                  },
                  SIGINT),
              SIGINT);
    EXPECT_FALSE(fs::exists(dir / "a"));
    EXPECT_EQ(child(
                  [&] {
                      auto* out = new OutputDir(fresh);
                      write_text_atomic(out->staged("x.txt").string(), "x");
                      out->commit();
                  },
                  SIGTERM),
              SIGTERM);
    EXPECT_TRUE(fs::exists(fresh / "x.txt"));
    for (const auto& e : fs::directory_iterator(fresh)) {
        EXPECT_NE(e.path().filename().string().rfind(".npusim-staging-", 0), 0u) << e.path();
    }
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
    {
        OutputDir earlier(dir);
        earlier.write_text("report.json", "old\n");
        earlier.commit();
    }
    try {
        OutputDir out(dir);
        out.write_text("report.json", "new\n");
        throw Error("simulated failure");
    } catch (const Error&) {
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{".npusim-outputs", "report.json"}));
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

// The output-folder rule: a folder with files npusim did not write is refused before anything is
// written, and none of them is touched (a run's --out pointed at a photo folder lost the photos).
TEST_F(Files, AFolderOfSomeoneElsesFilesIsRefusedAndKept) {
    fs::create_directories(dir / "camera");
    write_text_atomic((dir / "camera" / "photo.jpg").string(), "jpeg\n");
    write_text_atomic((dir / "notes.txt").string(), "mine\n");
    try {
        OutputDir out(dir);
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("holds files npusim did not write (camera and 1 "
                                             "more)"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(listing(), (std::vector<std::string>{"camera", "notes.txt"}));
    EXPECT_EQ(read_text_file((dir / "camera" / "photo.jpg").string()), "jpeg\n");
}

// In npusim's own folder a run replaces only what npusim wrote there: a file the user added
// stays, and one with a name the run writes is refused at commit with nothing changed.
TEST_F(Files, InItsOwnFolderARunReplacesOnlyWhatNpusimWrote) {
    {
        OutputDir first(dir);
        first.write_text("report.json", "1\n");
        first.commit();
    }
    write_text_atomic((dir / "notes.txt").string(), "mine\n");
    fs::create_directories(dir / "lcd");
    write_text_atomic((dir / "lcd" / "screen.png").string(), "user\n");
    {
        OutputDir second(dir);
        second.write_text("report.json", "2\n");
        second.commit();
    }
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "2\n");
    EXPECT_EQ(read_text_file((dir / "notes.txt").string()), "mine\n");
    try {
        OutputDir third(dir);
        third.write_text("report.json", "3\n");
        write_text_atomic((third.staged_folder("lcd") / "frame.png").string(), "png\n");
        third.commit();
        FAIL() << "replaced lcd/";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("lcd: was not written by npusim"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "2\n");  // nothing moved
    EXPECT_EQ(read_text_file((dir / "lcd" / "screen.png").string()), "user\n");
}

// A folder an npusim before the output list wrote (its report.json says so) is npusim's.
TEST_F(Files, AnOlderNpusimsFolderIsAccepted) {
    fs::create_directories(dir);
    write_text_atomic((dir / "report.json").string(), "{\"schema\": \"npusim-report/2\"}\n");
    {
        OutputDir out(dir);
        out.write_text("report.json", "new\n");
        out.commit();
    }
    EXPECT_EQ(read_text_file((dir / "report.json").string()), "new\n");
}

// Inputs are read bounded: a FIFO or a device is refused before it is opened (a FIFO blocked
// forever, /dev/zero grew memory until bad_alloc), a file larger than its reader allows before
// it is read (a sparse 1 TB file costs nothing to make).
TEST_F(Files, InputsAreRegularFilesOfABoundedSize) {
    fs::create_directories(dir);
    const std::string fifo = (dir / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& path : {fifo, std::string("/dev/zero")}) {
        try {
            read_file(path);
            FAIL() << path;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos)
                << e.what();
        }
    }
    const fs::path sparse = dir / "sparse.bin";
    write_text_atomic(sparse.string(), "x");
    fs::resize_file(sparse, uint64_t{1} << 40);
    EXPECT_THROW(read_file(sparse.string()), Error);
    write_text_atomic(sparse.string(), "0123456789");
    EXPECT_THROW(read_file(sparse.string(), 9), Error);
    EXPECT_EQ(read_file(sparse.string(), 10).size(), 10u);
    EXPECT_THROW(ConfigDocument::load_file(fifo), Error);
}

TEST_F(Files, OutputDirThatIsAFile) {
    write_text_atomic(dir.string(), "x");
    try {
        OutputDir out(dir);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exists and is not a folder"), std::string::npos);
    }
    fs::remove(dir);
}

TEST_F(Files, AtomicWriteFailureLeavesNoFile) {
    EXPECT_THROW(write_text_atomic((dir / "missing-subdir" / "f").string(), "x"), Error);
    EXPECT_FALSE(fs::exists(dir / "missing-subdir"));
}

}  // namespace
}  // namespace npu::sim
