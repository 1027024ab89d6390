// Framing of JSON-RPC messages: whatever arrives on the pipe, the reader returns whole messages, says
// what was wrong with the rest, and never holds more than its limit.
#include <doctest/doctest.h>

#include <string>
#include <thread>

#include <unistd.h>

#include "lsp/jsonrpc.h"

using namespace gs::lsp;

namespace {

// A pipe whose read end gets `input`, written from another thread (so large inputs cannot block).
struct Pipe {
  int fds[2];
  std::thread writer;
  explicit Pipe(std::string input) {
    REQUIRE(::pipe(fds) == 0);
    writer = std::thread([this, input = std::move(input)] {
      size_t done = 0;
      while (done < input.size()) {
        const ssize_t n = ::write(fds[1], input.data() + done, std::min<size_t>(input.size() - done, 1000));
        if (n <= 0) break;
        done += size_t(n);
      }
      ::close(fds[1]);
    });
  }
  ~Pipe() {
    writer.join();
    ::close(fds[0]);
  }
};

}  // namespace

TEST_CASE("messages are read whole, one after another, whatever the header's case") {
  Pipe p("Content-Length: 2\r\n\r\n{}\r\n" "content-length:7\r\nContent-Type: x\r\n\r\n[1,2,3]");
  FrameReader r(p.fds[0]);
  Frame f = r.next();
  CHECK(f.k == Frame::K::Body);
  CHECK(f.body == "{}");
  f = r.next();  // the stray "\r\n" between messages is skipped
  CHECK(f.k == Frame::K::Body);
  CHECK(f.body == "[1,2,3]");
  CHECK(r.next().k == Frame::K::End);
}

TEST_CASE("bad headers and over-long bodies are reported, and the stream stays in step") {
  const std::string big(5000, 'x');
  Pipe p("Content-Length: 12x\r\n\r\n" "Content-Length: 5000\r\n\r\n" + big + "Content-Length: 2\r\n\r\nok" +
         "no colon here\r\n\r\n" + "Content-Length: 4\r\n\r\nab");
  FrameReader r(p.fds[0], /*max_body=*/1000);
  Frame f = r.next();
  CHECK(f.k == Frame::K::BadHeader);
  CHECK(f.problem == "the Content-Length header is not a byte count");
  f = r.next();
  CHECK(f.k == Frame::K::TooLarge);
  CHECK(f.problem == "the message is 5000 bytes; the limit is 1000");
  f = r.next();
  CHECK(f.k == Frame::K::Body);
  CHECK(f.body == "ok");
  f = r.next();
  CHECK(f.k == Frame::K::BadHeader);
  CHECK(r.next().k == Frame::K::End);  // the input ends inside the last body
}

TEST_CASE("framing writes the byte length of the UTF-8 body") {
  const std::string s = frame(json{{"a", "\xCE\xB7"}});
  CHECK(s == "Content-Length: 10\r\n\r\n{\"a\":\"\xCE\xB7\"}");
  // Invalid UTF-8 is replaced, never thrown on.
  CHECK(frame(json{{"a", std::string("\xFF")}}).find("\xEF\xBF\xBD") != std::string::npos);
}
