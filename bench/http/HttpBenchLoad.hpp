// bench/http/HttpBenchLoad.hpp — the client load of coreactor-bench-http: C
// keep-alive connections, each with keys of its own, doing a mix of GETs and
// PUTs one request at a time, as fast as the server answers.
//
// Completion-verified: a request counts only when its answer came with the
// right status (200 and the value last PUT for a GET, 204 for a PUT over a
// value); anything else, a closed connection or a deadline passed ends the
// run as failed. The client parses only what the server of
// examples/http-service sends (a status line, a Content-Length, a body), so
// that it spends as little of the machine as it can: both arms share it.
//
// A round: every connection connects and PUTs its keys (off the clock), then
// all of them run their share of the requests; the time runs from the first
// timed request sent to the last answer taken. Blocking; one thread per
// `clientThreads`, each with its own io_context. Each phase has a generous
// deadline (kLoadDeadline): a request never answered fails the round
// instead of hanging it.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <coreactor/Asio.hpp>

namespace httpbench {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

inline constexpr auto kLoadDeadline = std::chrono::seconds(120);

struct LoadOptions {
  std::uint16_t port = 0;
  std::size_t connections = 32;
  std::size_t requests = 100'000;  // timed, over all connections
  std::size_t keysPerConnection = 64;
  std::size_t valueBytes = 64;
  std::size_t clientThreads = 1;
};

struct LoadResult {
  bool ok = false;
  std::string failure;                   // why not ok
  std::uint64_t verified = 0;            // timed requests answered as expected
  Clock::duration elapsed{};             // first timed request to last answer
  std::vector<std::uint32_t> latencyNs;  // one per verified request, unsorted
};

namespace detail {

// One connection: connects, PUTs its keys, then does `requests` requests,
// every fourth a PUT (75% GET, 25% PUT), over its keys in a fixed order.
class LoadConnection {
 public:
  LoadConnection(asio::io_context& io, const LoadOptions& options, std::size_t id,
                 std::size_t requests)
      : options_(options), socket_(io), id_(id), requests_(requests) {
    for (std::size_t k = 0; k < options.keysPerConnection; ++k) {
      keys_.push_back("c" + std::to_string(id) + "-k" + std::to_string(k));
      values_.push_back(valueFor(k, 0));
    }
    latency_.reserve(requests);
  }

  // Phase one: connect and PUT every key (201 each).
  void prefill() {
    socket_.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), options_.port),
                          [this](const boost::system::error_code& e) {
                            if (e) return fail("connect: " + e.message());
                            socket_.set_option(tcp::no_delay(true));
                            prefillNext();
                          });
  }

  // Phase two: the timed requests.
  void run() {
    next_ = 0;
    runNext();
  }

  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  std::uint64_t verified() const { return verified_; }
  const std::vector<std::uint32_t>& latency() const { return latency_; }

 private:
  std::string valueFor(std::size_t key, std::size_t round) const {
    std::string v =
        "v" + std::to_string(id_) + "-" + std::to_string(key) + "-" + std::to_string(round) + "-";
    v.resize(options_.valueBytes, '.');
    return v;
  }

  void prefillNext() {
    if (next_ == keys_.size()) return;
    const std::size_t k = next_++;
    put(k);
    exchange(201, nullptr, [this] { prefillNext(); });
  }

  void runNext() {
    if (next_ == requests_) return;
    const std::size_t i = next_++;
    const std::size_t k = (i * 7) % keys_.size();
    sent_ = Clock::now();
    if (i % 4 == 3) {
      values_[k] = valueFor(k, i + 1);
      put(k);
      exchange(204, nullptr, [this] { timed(); });
    } else {
      out_ = "GET /kv/" + keys_[k] + " HTTP/1.1\r\nHost: bench\r\n\r\n";
      exchange(200, &values_[k], [this] { timed(); });
    }
  }

  void timed() {
    latency_.push_back(static_cast<std::uint32_t>(std::min<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - sent_).count(),
        UINT32_MAX)));
    ++verified_;
    runNext();
  }

  void put(std::size_t k) {
    out_ = "PUT /kv/" + keys_[k] +
           " HTTP/1.1\r\nHost: bench\r\nContent-Length: " + std::to_string(values_[k].size()) +
           "\r\n\r\n" + values_[k];
  }

  // Writes out_, reads one answer, checks it, then calls `then`.
  template <class Then>
  void exchange(int status, const std::string* body, Then then) {
    expectStatus_ = status;
    expectBody_ = body;
    asio::async_write(socket_, asio::buffer(out_),
                      [this, then](const boost::system::error_code& e, std::size_t) {
                        if (e) return fail("write: " + e.message());
                        read(then);
                      });
  }

  template <class Then>
  void read(Then then) {
    std::size_t used = 0;
    int status = 0;
    std::string_view body;
    if (parse(status, body, used)) {
      if (status != expectStatus_ || (expectBody_ != nullptr && body != *expectBody_)) {
        return fail("expected " + std::to_string(expectStatus_) + ", got " +
                    std::to_string(status) + " " + std::string(body.substr(0, 80)));
      }
      in_.erase(0, used);
      then();
      return;
    }
    socket_.async_read_some(asio::buffer(chunk_),
                            [this, then](const boost::system::error_code& e, std::size_t n) {
                              if (e) return fail("read: " + e.message());
                              in_.append(chunk_, n);
                              read(then);
                            });
  }

  // One whole answer at the front of in_: its status, its body, its size.
  bool parse(int& status, std::string_view& body, std::size_t& used) const {
    const std::size_t end = in_.find("\r\n\r\n");
    if (end == std::string::npos || end < 12) return false;
    status = std::atoi(in_.c_str() + 9);  // "HTTP/1.1 200 OK"
    std::size_t length = 0;
    const std::size_t at = in_.find("Content-Length: ");
    if (at != std::string::npos && at < end)
      length = std::strtoul(in_.c_str() + at + 16, nullptr, 10);
    if (in_.size() < end + 4 + length) return false;
    body = std::string_view(in_).substr(end + 4, length);
    used = end + 4 + length;
    return true;
  }

  void fail(std::string why) {
    if (failure_.empty()) failure_ = "connection " + std::to_string(id_) + ": " + std::move(why);
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  const LoadOptions& options_;
  tcp::socket socket_;
  std::size_t id_;
  std::size_t requests_;
  std::vector<std::string> keys_;
  std::vector<std::string> values_;  // what each key holds now
  std::size_t next_ = 0;
  std::string out_;
  std::string in_;
  char chunk_[16 * 1024];
  int expectStatus_ = 0;
  const std::string* expectBody_ = nullptr;
  Clock::time_point sent_;
  std::uint64_t verified_ = 0;
  std::vector<std::uint32_t> latency_;
  std::string failure_;
};

}  // namespace detail

// Runs one round of the load against 127.0.0.1:options.port.
inline LoadResult runLoad(const LoadOptions& options) {
  const std::size_t threads = std::max<std::size_t>(1, options.clientThreads);
  std::barrier ready(static_cast<std::ptrdiff_t>(threads));
  std::vector<std::unique_ptr<asio::io_context>> ios;
  for (std::size_t t = 0; t < threads; ++t) ios.push_back(std::make_unique<asio::io_context>(1));
  std::vector<std::vector<std::unique_ptr<detail::LoadConnection>>> connections(threads);
  for (std::size_t c = 0; c < options.connections; ++c) {
    // The requests divide over the connections; the first ones take the rest.
    const std::size_t share =
        options.requests / options.connections + (c < options.requests % options.connections);
    connections[c % threads].push_back(
        std::make_unique<detail::LoadConnection>(*ios[c % threads], options, c, share));
  }
  std::vector<Clock::time_point> begins(threads), ends(threads);
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (auto& c : connections[t]) c->prefill();
      ios[t]->run_for(kLoadDeadline);
      ios[t]->restart();
      ready.arrive_and_wait();
      begins[t] = Clock::now();
      for (auto& c : connections[t]) {
        if (!c->failed()) c->run();
      }
      ios[t]->run_for(kLoadDeadline);
      ends[t] = Clock::now();
    });
  }
  for (std::thread& w : workers) w.join();

  LoadResult result;
  result.elapsed =
      *std::max_element(ends.begin(), ends.end()) - *std::min_element(begins.begin(), begins.end());
  for (auto& perThread : connections) {
    for (auto& c : perThread) {
      if (c->failed() && result.failure.empty()) result.failure = c->failure();
      result.verified += c->verified();
      result.latencyNs.insert(result.latencyNs.end(), c->latency().begin(), c->latency().end());
    }
  }
  result.ok = result.failure.empty() && result.verified == options.requests;
  if (result.failure.empty() && !result.ok) {
    result.failure = std::to_string(result.verified) + " of " + std::to_string(options.requests) +
                     " requests verified";
  }
  return result;
}

}  // namespace httpbench
