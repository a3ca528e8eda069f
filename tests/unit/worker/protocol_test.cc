// The worker protocol's lines (docs/workers.md): every well-formed message round-trips, and every
// malformed one is refused with its exact message, the table of errors the doc shows.
#include "engine/worker/protocol.h"

#include <gtest/gtest.h>
#include <perfengine/worker.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>

namespace pe::worker {
namespace {

const Hello kProtocolHello{1, {"parse", "generate"}, {"objects"}};
const RunRequest kAsked{"parse", 1000};

std::string ReplyError(const std::string& line) { return ParseReply(line, kProtocolHello, kAsked).error; }

constexpr const char* kGoodReply =
    "done name=parse iterations=1000 thread_cpu_ns=5000 process_cpu_ns=6000 wall_ns=7000 digest=ab12 "
    "counter.objects=42";

TEST(WorkerProtocol, AHelloRoundTrips) {
  const Parsed<Hello> parsed = ParseHello("hello version=1 benchmarks=parse,generate counters=objects");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value, kProtocolHello);
  EXPECT_EQ(FormatHello(kProtocolHello), "hello version=1 benchmarks=parse,generate counters=objects\n");
  const Parsed<Hello> without = ParseHello("hello benchmarks=a version=1");
  ASSERT_TRUE(without.ok()) << without.error;
  EXPECT_TRUE(without.value.counters.empty());
  EXPECT_EQ(FormatHello(without.value), "hello version=1 benchmarks=a\n");
}

TEST(WorkerProtocol, MalformedHellosAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"hello version=2 benchmarks=a", "protocol version 2 is not supported (this engine speaks version 1)"},
      {"hello version=one benchmarks=a", "field 'version' is not a decimal integer: 'one'"},
      {"hello benchmarks=a", "missing field 'version'"},
      {"hello version=1", "missing field 'benchmarks'"},
      {"hello version=1 benchmarks=", "the hello names no benchmark"},
      {"hello version=1 benchmarks=a,,b", "invalid benchmark name ''"},
      {"hello version=1 benchmarks=a,a", "benchmark 'a' named twice"},
      {"hello version=1 benchmarks=a=b", "invalid benchmark name 'a=b'"},
      {"hello version=1 benchmarks=a counters=x,y,x", "counter 'x' named twice"},
      {"hello version=1 benchmarks=a colour=red", "unknown key 'colour' in hello"},
      {"hello version=1 version=1 benchmarks=a", "field 'version' given twice"},
      {"hello version=1  benchmarks=a", "not a key=value field: ''"},
      {"hello version=1 benchmarks=a\r", "control byte in line 'hello version=1 benchmarks=a\\x0d'"},
      {"HELLO version=1 benchmarks=a", "expected 'hello', got 'HELLO version=1 benchmarks=a'"},
      {"hello version=1 benchmarks=" + std::string(kMaxLineBytes, 'a'), "line longer than 65536 bytes"},
  };
  for (const auto& [line, error] : cases) EXPECT_EQ(ParseHello(line).error, error) << line.substr(0, 60);
}

TEST(WorkerProtocol, RequestsRoundTrip) {
  EXPECT_EQ(FormatRequest(kAsked), "run parse 1000\n");
  EXPECT_EQ(FormatRequest(QuitRequest{}), "quit\n");
  const Parsed<Request> run = ParseRequest("run parse 1000");
  ASSERT_TRUE(run.ok()) << run.error;
  EXPECT_EQ(std::get<RunRequest>(run.value), kAsked);
  EXPECT_TRUE(std::holds_alternative<QuitRequest>(ParseRequest("quit").value));
}

TEST(WorkerProtocol, MalformedRequestsAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"run parse", "'run' takes a benchmark and an iteration count"},
      {"run parse 10 20", "'run' takes a benchmark and an iteration count"},
      {"run parse 0", "iterations must be at least 1"},
      {"run parse -3", "field 'iterations' is negative: '-3'"},
      {"run parse 1e3", "field 'iterations' is not a decimal integer: '1e3'"},
      {"run parse 99999999999999999999", "field 'iterations' is out of range: '99999999999999999999'"},
      {"run pa,rse 1", "invalid benchmark name 'pa,rse'"},
      {"quit now", "unknown request 'quit now'"},
      {"stop", "unknown request 'stop'"},
  };
  for (const auto& [line, error] : cases) EXPECT_EQ(ParseRequest(line).error, error) << line;
}

TEST(WorkerProtocol, AReplyRoundTrips) {
  const Parsed<Reply> parsed = ParseReply(kGoodReply, kProtocolHello, kAsked);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  const Batch expected{"parse", 1000, 5000, 6000, 7000, "ab12", {{"objects", 42}}};
  EXPECT_EQ(std::get<Batch>(parsed.value), expected);
  EXPECT_EQ(FormatReply(expected), std::string(kGoodReply) + "\n");
  // Fields in any order.
  EXPECT_TRUE(ParseReply("done digest=- counter.objects=0 wall_ns=1 process_cpu_ns=1 thread_cpu_ns=1 iterations=1000 "
                         "name=parse",
                         kProtocolHello, kAsked)
                  .ok());
}

TEST(WorkerProtocol, AFailedReplyKeepsItsReasonWhole) {
  const Parsed<Reply> parsed = ParseReply("failed name=parse reason=fixture missing: a b=c", kProtocolHello, kAsked);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(std::get<Failed>(parsed.value), (Failed{"parse", "fixture missing: a b=c"}));
  EXPECT_EQ(FormatReply(Failed{"parse", "x y"}), "failed name=parse reason=x y\n");
  EXPECT_EQ(ReplyError("failed name=generate reason=x"), "reply for benchmark 'generate', asked for 'parse'");
  EXPECT_EQ(ReplyError("failed parse"), "'failed' takes name=NAME reason=TEXT");
}

TEST(WorkerProtocol, MalformedRepliesAreNamed) {
  const std::string good = kGoodReply;
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string line = good;
    line.replace(line.find(from), from.size(), to);
    return line;
  };
  const std::pair<std::string, std::string> cases[] = {
      {"garbage", "expected 'done' or 'failed', got 'garbage'"},
      {"", "expected 'done' or 'failed', got ''"},
      {good + " colour=red", "unknown key 'colour' in reply"},
      {good + " counter.bytes=1", "unknown key 'counter.bytes' in reply"},
      {good + " wall_ns=1", "field 'wall_ns' given twice"},
      {with(" wall_ns=7000", ""), "missing field 'wall_ns'"},
      {with(" counter.objects=42", ""), "missing field 'counter.objects'"},
      {with("wall_ns=7000", "wall_ns=7.5"), "field 'wall_ns' is not a decimal integer: '7.5'"},
      {with("wall_ns=7000", "wall_ns="), "field 'wall_ns' is not a decimal integer: ''"},
      {with("thread_cpu_ns=5000", "thread_cpu_ns=-5"), "field 'thread_cpu_ns' is negative: '-5'"},
      {with("counter.objects=42", "counter.objects=-1"), "field 'counter.objects' is negative: '-1'"},
      {with("name=parse", "name=generate"), "reply for benchmark 'generate', asked for 'parse'"},
      {with("iterations=1000", "iterations=999"), "reply for 999 iterations, asked for 1000"},
      {with("digest=ab12", "digest="), "invalid digest ''"},
      {with("digest=ab12", "digest=" + std::string(129, 'f')), "invalid digest '" + std::string(80, 'f') + "'..."},
      {good + "\r", "control byte in line '" + good.substr(0, 80) + "'..."},
      {good + " x", "not a key=value field: 'x'"},
      {good + std::string(kMaxLineBytes, ' '), "line longer than 65536 bytes"},
  };
  for (const auto& [line, error] : cases) EXPECT_EQ(ReplyError(line), error) << line.substr(0, 100);
}

TEST(WorkerProtocol, QuoteKeepsAnErrorOnOneLine) {
  EXPECT_EQ(Quote("a\nb'\\\xff"), "'a\\x0ab\\x27\\x5c\\xff'");
  EXPECT_EQ(Quote(std::string(81, 'z')), "'" + std::string(80, 'z') + "'...");
}

// docs/workers.md's worked example, line by line, is what this parser reads: the doc cannot drift.
TEST(WorkerProtocol, TheDocsWorkedExampleIsTheProtocol) {
  std::ifstream doc(WORKERS_DOC);
  std::string line;
  while (std::getline(doc, line) && line != "## A worked example") {
  }
  Hello hello;
  RunRequest asked;
  int lines = 0;
  while (std::getline(doc, line) && !line.starts_with("## ")) {
    if (!line.starts_with("    < ") && !line.starts_with("    > ")) continue;
    const std::string text = line.substr(6);
    ++lines;
    if (text.starts_with("hello")) {
      const Parsed<Hello> parsed = ParseHello(text);
      ASSERT_TRUE(parsed.ok()) << parsed.error;
      hello = parsed.value;
    } else if (line[4] == '>') {
      const Parsed<Request> parsed = ParseRequest(text);
      ASSERT_TRUE(parsed.ok()) << parsed.error;
      EXPECT_EQ(FormatRequest(parsed.value), text + "\n");
      if (const auto* run = std::get_if<RunRequest>(&parsed.value)) asked = *run;
    } else {
      const Parsed<Reply> parsed = ParseReply(text, hello, asked);
      ASSERT_TRUE(parsed.ok()) << parsed.error << ": " << text;
      EXPECT_EQ(FormatReply(parsed.value), text + "\n");
    }
  }
  EXPECT_EQ(lines, 8);
}

// A pe_worker (include/perfengine/worker.h) on one end of a socket pair; the test holds the other.
struct HelperOnASocket {
  HelperOnASocket() {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    worker.in_fd = pair[1];
    worker.out_fd = pair[1];
    worker.len = 0;
  }
  ~HelperOnASocket() {
    ::close(pair[0]);
    if (pair[1] >= 0) ::close(pair[1]);
  }
  void Write(const std::string& text) {
    ASSERT_EQ(::write(pair[0], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  int pair[2] = {-1, -1};
  pe_worker worker;
};

// The C helper a worker compiles, against this parser: an independent writer and reader.
TEST(WorkerProtocol, TheHeaderHelpersLinesParseHere) {
  HelperOnASocket helper;
  pe_worker& worker = helper.worker;
  ASSERT_EQ(pe_worker_hello(&worker, "parse,generate", "objects"), 0);
  helper.Write(FormatRequest(kAsked) + FormatRequest(QuitRequest{}));
  pe_request asked;
  ASSERT_EQ(pe_worker_next(&worker, &asked), 1);
  EXPECT_EQ(std::string(asked.name), "parse");
  EXPECT_EQ(asked.iterations, 1000);
  pe_batch batch{5000, 6000, 7000};
  const char* names[] = {"objects"};
  const std::int64_t growth[] = {42};
  ASSERT_EQ(pe_worker_done(&worker, &asked, &batch, "ab12", names, growth, 1), 0);
  ASSERT_EQ(pe_worker_failed(&worker, "parse", "no fixture"), 0);
  EXPECT_EQ(pe_worker_next(&worker, &asked), 0);  // quit
  ::close(std::exchange(helper.pair[1], -1));

  std::string written;
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(helper.pair[0], chunk, sizeof chunk)) > 0) written.append(chunk, static_cast<std::size_t>(n));
  EXPECT_EQ(written, FormatHello(kProtocolHello) + kGoodReply + "\n" + FormatReply(Failed{"parse", "no fixture"}));
}

TEST(WorkerProtocol, TheHeaderHelperRefusesWhatIsNotARequest) {
  for (const std::string line : {"run parse 0\n", "run parse -1\n", "run pa=rse 1\n", "walk\n", "run parse\n"}) {
    HelperOnASocket helper;
    helper.Write(line);
    pe_request asked;
    EXPECT_EQ(pe_worker_next(&helper.worker, &asked), -1) << line;
  }
}

}  // namespace
}  // namespace pe::worker
