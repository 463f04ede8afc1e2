// examples/http-service, run as a user runs it: the built example-http-service
// is started as a child process (--port 0 --isolates 2), and this test talks
// to it over real sockets: many keep-alive clients at once, every route and
// status code, requests that are not HTTP, too big, cut short or half-closed,
// the metrics, and a SIGTERM at the end, after which the service must exit 0
// and say it answered exactly as many requests as the clients read.
//
// The tests share the one service and run in the order they are written; the
// SIGTERM test is the last. Every wait has a generous deadline (each socket
// operation 30 s, the start and the stop 60 s): none measures speed.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coreactor/Asio.hpp"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using Response = http::response<http::string_body>;

constexpr auto kOperationDeadline = 30s;
constexpr auto kProcessDeadline = 60s;
constexpr std::size_t kMaxBody = 64 * 1024;  // the service's default

// Every answer a client of this test read in full, all tests together: the
// service's summary line must say the same number.
std::atomic<std::uint64_t> gAnswers{0};

// ---- the service, a child process -------------------------------------------------

struct Service {
  pid_t pid = -1;
  int out = -1;  // its stdout
  std::uint16_t port = 0;
  std::string unread;  // bytes of stdout read but not yet taken as a line
  std::string log;     // every line it printed
};
Service* gService = nullptr;

// The next line of the service's stdout, or nothing at end of file or after
// the deadline.
std::optional<std::string> readLine(Service& s) {
  const auto deadline = std::chrono::steady_clock::now() + kProcessDeadline;
  for (;;) {
    if (const auto end = s.unread.find('\n'); end != std::string::npos) {
      std::string line = s.unread.substr(0, end);
      s.unread.erase(0, end + 1);
      s.log += line + "\n";
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{s.out, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[512];
    const ssize_t n = read(s.out, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    s.unread.append(chunk, static_cast<std::size_t>(n));
  }
}

// Starts the built service on a free port with 2 isolates and `extra` flags.
Service* startService(std::vector<const char*> extra = {}) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return nullptr;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The service dies with this test, whatever ends it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    dup2(pipeFds[1], STDOUT_FILENO);
    close(pipeFds[0]);
    close(pipeFds[1]);
    std::vector<const char*> argv = {HTTP_SERVICE_BINARY, "--port", "0", "--isolates", "2"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(nullptr);
    execv(argv[0], const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  close(pipeFds[1]);
  if (pid < 0) return nullptr;
  auto* s = new Service;
  s->pid = pid;
  s->out = pipeFds[0];
  const std::optional<std::string> line = readLine(*s);
  const std::string prefix = "listening on 127.0.0.1:";
  if (line && line->starts_with(prefix)) s->port = std::stoi(line->substr(prefix.size()));
  return s;
}

// Waits for the service to exit; its exit status, or -1 (killed by a signal,
// or not exited before the deadline).
int waitForExit(Service& s) {
  const auto deadline = std::chrono::steady_clock::now() + kProcessDeadline;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t done = waitpid(s.pid, &status, WNOHANG);
    if (done == s.pid) {
      s.pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(10ms);
  }
  return -1;
}

// ---- a client: one connection, each operation run to its end or its deadline --------

class Client {
 public:
  // A connection to the shared service; its answers count in gAnswers.
  Client() : Client(gService->port, gAnswers) {}
  // A connection to the service on `port`; its answers count in `answers`.
  Client(std::uint16_t port, std::atomic<std::uint64_t>& answers) : answers_(answers) {
    stream_.expires_after(kOperationDeadline);
    stream_.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                          [this](beast::error_code e) { error_ = e; });
    wait();
  }

  beast::error_code send(http::verb verb, const std::string& target, std::string body = {},
                         bool keepAlive = true) {
    http::request<http::string_body> request(verb, target, 11);
    request.set(http::field::host, "127.0.0.1");
    request.keep_alive(keepAlive);
    if (verb == http::verb::put) {
      request.body() = std::move(body);
      request.prepare_payload();
    }
    stream_.expires_after(kOperationDeadline);
    http::async_write(stream_, request, [this](beast::error_code e, std::size_t) { error_ = e; });
    return wait();
  }

  beast::error_code sendBytes(const std::string& bytes) {
    stream_.expires_after(kOperationDeadline);
    asio::async_write(stream_, asio::buffer(bytes),
                      [this](beast::error_code e, std::size_t) { error_ = e; });
    return wait();
  }

  // The next answer, read in full (counted), or nothing.
  std::optional<Response> receive() {
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 * 1024 * 1024);
    stream_.expires_after(kOperationDeadline);
    http::async_read(stream_, buffer_, parser,
                     [this](beast::error_code e, std::size_t) { error_ = e; });
    if (wait()) return std::nullopt;
    ++answers_;
    return parser.release();
  }

  // A request and its answer.
  std::optional<Response> exchange(http::verb verb, const std::string& target,
                                   std::string body = {}) {
    if (send(verb, target, std::move(body))) return std::nullopt;
    return receive();
  }

  // True if the server closes the connection without sending anything more.
  bool closedByServer() {
    if (buffer_.size() != 0) return false;
    char byte = 0;
    stream_.expires_after(kOperationDeadline);
    stream_.async_read_some(asio::buffer(&byte, 1),
                            [this](beast::error_code e, std::size_t) { error_ = e; });
    return wait() == asio::error::eof;
  }

  void shutdownSend() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::error_code error() const { return error_; }

 private:
  beast::error_code wait() {
    io_.restart();
    io_.run();
    return error_;
  }

  std::atomic<std::uint64_t>& answers_;
  asio::io_context io_;
  beast::tcp_stream stream_{io_};
  beast::flat_buffer buffer_;
  beast::error_code error_;
};

std::string describe(const std::optional<Response>& r, const Client& c) {
  if (!r) return "no answer: " + c.error().message();
  return std::to_string(r->result_int()) + " " + r->body();
}

// ---- the tests ------------------------------------------------------------------------

class HttpService : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gService = startService(); }
  static void TearDownTestSuite() {
    if (gService == nullptr) return;
    if (gService->pid > 0) {
      kill(gService->pid, SIGKILL);
      waitpid(gService->pid, nullptr, 0);
    }
    close(gService->out);
    delete gService;
    gService = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(gService, nullptr) << "could not start " HTTP_SERVICE_BINARY;
    ASSERT_NE(gService->port, 0) << "no 'listening on' line; it printed:\n" << gService->log;
    ASSERT_GT(gService->pid, 0) << "the service has already stopped";
  }
};

TEST_F(HttpService, AnswersEveryRequestOfEightConcurrentKeepAliveClients) {
  // 8 clients, one connection each, 40 keys of their own and 5 requests per
  // key: 1,600 requests, every answer's status and body checked.
  constexpr int kClients = 8;
  constexpr int kKeys = 40;
  struct Outcome {
    int answered = 0;
    int wrong = 0;
    std::string firstWrong;
  };
  std::vector<Outcome> outcomes(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([c, &outcome = outcomes[c]] {
      Client client;
      const auto expect = [&](const std::optional<Response>& r, http::status status,
                              const std::string* body, const char* what) {
        if (r) ++outcome.answered;
        if (r && r->result() == status && (body == nullptr || r->body() == *body)) return;
        if (outcome.wrong++ == 0) outcome.firstWrong = what + (": " + describe(r, client));
      };
      for (int k = 0; k < kKeys; ++k) {
        const std::string target = "/kv/client" + std::to_string(c) + "-key" + std::to_string(k);
        const std::string first = "first value of " + target;
        const std::string second = std::string(1000 + k, 'x');
        expect(client.exchange(http::verb::put, target, first), http::status::created, nullptr,
               "PUT of a new key");
        expect(client.exchange(http::verb::get, target), http::status::ok, &first, "GET");
        expect(client.exchange(http::verb::put, target, second), http::status::no_content, nullptr,
               "PUT over a value");
        expect(client.exchange(http::verb::get, target), http::status::ok, &second,
               "GET of the new value");
        expect(client.exchange(http::verb::delete_, target), http::status::no_content, nullptr,
               "DELETE");
      }
    });
  }
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    EXPECT_EQ(outcomes[c].answered, kKeys * 5) << "client " << c << " lost requests";
    EXPECT_EQ(outcomes[c].wrong, 0) << "client " << c << ", first: " << outcomes[c].firstWrong;
  }
}

TEST_F(HttpService, AnswersAMissingKeyAndAnUnknownPathWith404) {
  Client client;
  for (const char* target : {"/kv/never-put", "/nothing", "/kv/", "/", "/kvx/a"}) {
    const auto r = client.exchange(http::verb::get, target);
    ASSERT_TRUE(r) << target << ": " << client.error().message();
    EXPECT_EQ(r->result(), http::status::not_found) << target;
  }
  const auto deleted = client.exchange(http::verb::delete_, "/kv/never-put");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->result(), http::status::not_found);
}

TEST_F(HttpService, RefusesAWrongVerbWith405AndSaysWhichAreAllowed) {
  Client client;
  ASSERT_FALSE(client.sendBytes("BREW /kv/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const auto brew = client.receive();
  ASSERT_TRUE(brew) << client.error().message();
  EXPECT_EQ(brew->result(), http::status::method_not_allowed);
  EXPECT_EQ((*brew)[http::field::allow], "GET, PUT, DELETE");

  // The connection stays open after a 405.
  const auto post = client.exchange(http::verb::post, "/kv/a");
  ASSERT_TRUE(post) << client.error().message();
  EXPECT_EQ(post->result(), http::status::method_not_allowed);

  const auto putMetrics = client.exchange(http::verb::put, "/metrics", "x");
  ASSERT_TRUE(putMetrics) << client.error().message();
  EXPECT_EQ(putMetrics->result(), http::status::method_not_allowed);
  EXPECT_EQ((*putMetrics)[http::field::allow], "GET");
}

TEST_F(HttpService, RefusesABodyOverTheLimitWith413AndCloses) {
  Client tooBig;
  const auto refused = tooBig.exchange(http::verb::put, "/kv/big", std::string(kMaxBody + 1, 'b'));
  ASSERT_TRUE(refused) << tooBig.error().message();
  EXPECT_EQ(refused->result(), http::status::payload_too_large);
  EXPECT_FALSE(refused->keep_alive());
  EXPECT_TRUE(tooBig.closedByServer());

  Client atTheLimit;
  const auto stored = atTheLimit.exchange(http::verb::put, "/kv/big", std::string(kMaxBody, 'b'));
  ASSERT_TRUE(stored) << atTheLimit.error().message();
  EXPECT_EQ(stored->result(), http::status::created);
}

TEST_F(HttpService, AnswersBytesThatAreNotHttpWith400AndCloses) {
  Client client;
  const char bytes[] = "\x16\x03\x01\x02\x00 not http\r\n\r\n";  // a TLS hello's first bytes
  ASSERT_FALSE(client.sendBytes(std::string(bytes, sizeof bytes - 1)));
  const auto r = client.receive();
  ASSERT_TRUE(r) << client.error().message();
  EXPECT_EQ(r->result(), http::status::bad_request);
  EXPECT_TRUE(client.closedByServer());
}

TEST_F(HttpService, RefusesAHeaderOverEightKibibytesWith431AndCloses) {
  Client client;
  const std::string request =
      "GET /kv/some-key HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(9 * 1024, 'p') +
      "\r\n\r\n";
  ASSERT_FALSE(client.sendBytes(request));
  const auto r = client.receive();
  ASSERT_TRUE(r) << client.error().message();
  EXPECT_EQ(r->result(), http::status::request_header_fields_too_large);
  EXPECT_TRUE(client.closedByServer());
}

TEST_F(HttpService, AnswersARequestWhoseBodyNeverComesWith400AndStoresNothing) {
  Client liar;
  ASSERT_FALSE(
      liar.sendBytes("PUT /kv/cut-short HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n"
                     "only twenty bytes..."));
  liar.shutdownSend();  // the other 80 bytes never come
  const auto r = liar.receive();
  ASSERT_TRUE(r) << liar.error().message();
  EXPECT_EQ(r->result(), http::status::bad_request);
  EXPECT_TRUE(liar.closedByServer());

  Client reader;
  const auto get = reader.exchange(http::verb::get, "/kv/cut-short");
  ASSERT_TRUE(get) << reader.error().message();
  EXPECT_EQ(get->result(), http::status::not_found);
}

TEST_F(HttpService, AnswersAClientThatHalfClosesAfterItsRequestThenCloses) {
  Client client;
  ASSERT_FALSE(client.send(http::verb::put, "/kv/half-closed", "still answered"));
  client.shutdownSend();
  const auto r = client.receive();
  ASSERT_TRUE(r) << client.error().message();
  EXPECT_EQ(r->result(), http::status::created);
  EXPECT_TRUE(client.closedByServer());
}

TEST_F(HttpService, ClosesAfterTheAnswerWhenTheClientAsksTo) {
  Client writer;
  const auto put = writer.exchange(http::verb::put, "/kv/closing", "then closed");
  ASSERT_TRUE(put) << writer.error().message();
  EXPECT_EQ(put->result(), http::status::created);

  Client client;
  ASSERT_FALSE(client.send(http::verb::get, "/kv/closing", {}, false));
  const auto r = client.receive();
  ASSERT_TRUE(r) << client.error().message();
  EXPECT_EQ(r->result(), http::status::ok);
  EXPECT_EQ(r->body(), "then closed");
  EXPECT_FALSE(r->keep_alive());
  EXPECT_TRUE(client.closedByServer());
}

TEST_F(HttpService, AnswersPipelinedRequestsInOrder) {
  Client client;
  ASSERT_FALSE(
      client.sendBytes("PUT /kv/piped HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\none"
                       "GET /kv/piped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                       "DELETE /kv/piped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                       "GET /kv/piped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const auto put = client.receive();
  const auto get = client.receive();
  const auto del = client.receive();
  const auto gone = client.receive();
  ASSERT_TRUE(put && get && del && gone) << client.error().message();
  EXPECT_EQ(put->result(), http::status::created);
  EXPECT_EQ(get->result(), http::status::ok);
  EXPECT_EQ(get->body(), "one");
  EXPECT_EQ(del->result(), http::status::no_content);
  EXPECT_EQ(gone->result(), http::status::not_found);
}

TEST_F(HttpService, ServesTheSystemsMetricsInPrometheusTextFormat) {
  Client client;
  const auto r = client.exchange(http::verb::get, "/metrics");
  ASSERT_TRUE(r) << client.error().message();
  EXPECT_EQ(r->result(), http::status::ok);
  EXPECT_TRUE((*r)[http::field::content_type].starts_with("text/plain; version=0.0.4"))
      << (*r)[http::field::content_type];
  EXPECT_NE(r->body().find("coreactor_messages_total"), std::string::npos) << r->body();
}

// Keep this test last: it stops the service.
TEST_F(HttpService, StopsOnSigtermClosingIdleConnectionsAndCountsEveryAnswer) {
  Client idle;  // a keep-alive connection with nothing in flight
  const auto r = idle.exchange(http::verb::get, "/kv/never-put");
  ASSERT_TRUE(r) << idle.error().message();
  EXPECT_EQ(r->result(), http::status::not_found);

  ASSERT_EQ(kill(gService->pid, SIGTERM), 0);
  EXPECT_TRUE(idle.closedByServer());

  std::optional<std::string> summary;
  while (const std::optional<std::string> line = readLine(*gService)) summary = line;
  EXPECT_EQ(waitForExit(*gService), 0) << "it printed:\n" << gService->log;
  ASSERT_TRUE(summary) << "no summary; it printed:\n" << gService->log;
  EXPECT_EQ(*summary, "served " + std::to_string(gAnswers.load()) + " requests");
}

// A service of its own, whose shards take a minute per request and whose
// requests wait 50 ms for them.
TEST(HttpServiceSlowStore, AnswersARequestItsShardDoesNotAnswerInTimeWith503AndStaysUp) {
  std::unique_ptr<Service> slow(
      startService({"--shard-delay-ms", "60000", "--ask-timeout-ms", "50"}));
  ASSERT_NE(slow, nullptr) << "could not start " HTTP_SERVICE_BINARY;
  ASSERT_NE(slow->port, 0) << "no 'listening on' line; it printed:\n" << slow->log;
  std::atomic<std::uint64_t> answers{0};
  {
    Client client(slow->port, answers);
    for (const char* key : {"/kv/first", "/kv/second"}) {
      const auto r = client.exchange(http::verb::put, key, "value");
      ASSERT_TRUE(r) << client.error().message();
      EXPECT_EQ(r->result(), http::status::service_unavailable) << describe(r, client);
      EXPECT_TRUE(r->keep_alive()) << "a 503 keeps the connection";
    }
  }
  // It stops cleanly with the shards' work still pending, and counts both.
  ASSERT_EQ(kill(slow->pid, SIGTERM), 0);
  std::optional<std::string> summary;
  while (const std::optional<std::string> line = readLine(*slow)) summary = line;
  EXPECT_EQ(waitForExit(*slow), 0) << "it printed:\n" << slow->log;
  ASSERT_TRUE(summary) << "no summary; it printed:\n" << slow->log;
  EXPECT_EQ(*summary, "served " + std::to_string(answers.load()) + " requests");
  EXPECT_EQ(answers.load(), 2u);
  close(slow->out);
}

}  // namespace
