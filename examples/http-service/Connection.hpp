// examples/http-service/Connection.hpp — one HTTP/1.1 connection of the
// server of Service.hpp, and what all connections share with the acceptor.
//
// A connection lives on one home (an isolate's loop, or a strand) and is
// only ever touched there: it reads a request, hands it to the store, writes
// the answer the store calls back with on the same home, and reads the next
// (keep-alive; pipelined requests in order). Its states:
//
//   Reading    waiting for a request's header (idle: stop() closes it here)
//   Handling   the request's body, then the store's answer
//   Writing    the answer
//   Lingering  its side shut down after a last answer, draining the client's
//   Closed     done; handlers that still come are dropped
//
// Every handler holds the connection (shared_from_this), so it lives as long
// as an operation is pending on it, and is destroyed once none is.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <coreactor/Asio.hpp>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "Kv.hpp"

namespace httpservice {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Where a connection lives: the executor of its socket and handlers, and the
// store's index for that place (the isolate, for the actor store).
struct Home {
  asio::any_io_executor executor;
  std::size_t index = 0;
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: a free port (Server::port() says which)
  std::size_t maxBody = 64 * 1024;
  // A connection that sends no request, or does not take its answer, for
  // this long is closed.
  std::chrono::seconds idleTimeout{60};
};

namespace detail {

constexpr std::string_view kKvPrefix = "/kv/";
constexpr std::size_t kHeaderLimit = 8 * 1024;
constexpr const char* kText = "text/plain; charset=utf-8";
constexpr const char* kValue = "application/octet-stream";
constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";
// After its last answer, a connection that closes reads what the client
// still sends for up to this long (Connection::linger).
constexpr auto kLinger = std::chrono::seconds(2);

template <class Store>
class Connection;

// What the acceptor and every connection share: the store, the options, the
// counters and the list of open connections (for stop()).
template <class Store>
struct Shared : std::enable_shared_from_this<Shared<Store>> {
  Shared(Store& store, ServerOptions options)
      : store(store),
        options(std::move(options)),
        acceptor(store.acceptorExecutor()),
        retry(store.acceptorExecutor()) {}

  // Accepts the next connection, and so on until the acceptor closes
  // (defined in Service.hpp).
  void accept();

  // A connection registers when it starts and leaves when it is destroyed:
  // two locks in a connection's life, none per request. The lock is there
  // because the plain arm's connections live on many threads.
  struct Entry {
    std::weak_ptr<Connection<Store>> connection;
    asio::any_io_executor executor;
  };
  void remember(const Connection<Store>* c, Entry entry) {
    const std::lock_guard lock(mutex);
    live.emplace(c, std::move(entry));
  }
  void forget(const Connection<Store>* c) {
    const std::lock_guard lock(mutex);
    live.erase(c);
    if (live.empty()) allClosed.notify_all();
  }

  Store& store;
  const ServerOptions options;
  tcp::acceptor acceptor;    // on the acceptor's executor only
  asio::steady_timer retry;  // an accept that failed is tried again after a pause
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> served{0};  // answers written in full
  std::mutex mutex;
  std::condition_variable allClosed;
  std::unordered_map<const Connection<Store>*, Entry> live;  // under mutex
};

template <class Store>
class Connection : public std::enable_shared_from_this<Connection<Store>> {
 public:
  Connection(std::shared_ptr<Shared<Store>> shared, Home home, tcp::socket socket)
      : shared_(std::move(shared)), home_(std::move(home)), stream_(std::move(socket)) {}
  ~Connection() { shared_->forget(this); }

  // From the acceptor: registers, then reads on the connection's home.
  void start() {
    shared_->remember(this, {this->weak_from_this(), home_.executor});
    asio::dispatch(home_.executor, [self = this->shared_from_this()] { self->readHeader(); });
  }

  // From stop(), on the home: a connection waiting for a request closes;
  // one with a request in flight answers it first.
  void closeIfIdle() {
    if (state_ == State::Reading || state_ == State::Lingering) close();
  }

 private:
  enum class State { Reading, Handling, Writing, Lingering, Closed };

  // A completion handler that keeps the connection alive and is dropped
  // once the connection has closed.
  template <class F>
  auto then(F f) {
    return [self = this->shared_from_this(), f](beast::error_code error, std::size_t) {
      if (self->state_ != State::Closed) ((*self).*f)(error);
    };
  }

  void readHeader() {
    if (state_ == State::Closed) return;
    if (shared_->stopping.load()) {
      close();
      return;
    }
    state_ = State::Reading;
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(shared_->options.maxBody);
    stream_.expires_after(shared_->options.idleTimeout);
    http::async_read_header(stream_, buffer_, *parser_, then(&Connection::onHeader));
  }

  void onHeader(beast::error_code error) {
    if (error) {
      failed(error);
      return;
    }
    state_ = State::Handling;
    if (parser_->is_done()) {
      route();
      return;
    }
    // A body follows. A client that waits for a go-ahead before sending it
    // (curl does for large bodies) gets it now: its announced size is within
    // the limit, or the header read would have failed.
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      continue_.version(parser_->get().version());
      http::async_write(stream_, continue_, then(&Connection::readBody));
      return;
    }
    readBody({});
  }

  void readBody(beast::error_code error) {
    if (error) {
      close();
      return;
    }
    http::async_read(stream_, buffer_, *parser_, then(&Connection::onBody));
  }

  void onBody(beast::error_code error) {
    if (error) {
      failed(error);
      return;
    }
    route();
  }

  // A read that brought no whole request.
  void failed(beast::error_code error) {
    static const auto& httpErrors = http::make_error_code(http::error::need_more).category();
    if (error == http::error::end_of_stream) {
      close();  // the client is done: it closed (or half-closed) between requests
    } else if (error == http::error::body_limit) {
      answer(http::status::payload_too_large, "the body is over the limit\n", true);
    } else if (error == http::error::header_limit) {
      answer(http::status::request_header_fields_too_large, "the header is over 8 KiB\n", true);
    } else if (error.category() == httpErrors) {
      // Not HTTP, or a request cut short (the client closed its side before
      // the body it announced): answered, then closed.
      answer(http::status::bad_request, "a request that does not parse\n", true);
    } else {
      close();  // timed out, reset, or closed by stop(): nobody to answer
    }
  }

  void route() {
    auto& request = parser_->get();
    keepAlive_ = request.keep_alive();
    version_ = request.version();
    std::string_view target(request.target().data(), request.target().size());
    target = target.substr(0, target.find('?'));

    if (target.size() > kKvPrefix.size() && target.starts_with(kKvPrefix)) {
      KvOp op;
      switch (request.method()) {
        case http::verb::get:
          op = KvOp::Get;
          break;
        case http::verb::put:
          op = KvOp::Put;
          break;
        case http::verb::delete_:
          op = KvOp::Delete;
          break;
        default:
          answer(http::status::method_not_allowed, "GET, PUT or DELETE\n", false,
                 "GET, PUT, DELETE");
          return;
      }
      KvRequest kv{op, std::string(target.substr(kKvPrefix.size())),
                   op == KvOp::Put ? std::move(request.body()) : std::string()};
      shared_->store.kv(home_, std::move(kv), [self = this->shared_from_this()](KvAnswer a) {
        self->onAnswer(std::move(a));
      });
      return;
    }
    if constexpr (Store::kMetrics) {
      if (target == "/metrics") {
        if (request.method() != http::verb::get) {
          answer(http::status::method_not_allowed, "GET\n", false, "GET");
          return;
        }
        shared_->store.metrics(home_, [self = this->shared_from_this()](std::string text) {
          self->answer(http::status::ok, std::move(text), false, nullptr, kMetricsType);
        });
        return;
      }
    }
    answer(http::status::not_found, "no such route: /kv/<key> or /metrics\n");
  }

  void onAnswer(KvAnswer a) {
    switch (a.outcome) {
      case KvOutcome::Found:
        answer(http::status::ok, std::move(a.value), false, nullptr, kValue);
        return;
      case KvOutcome::Missing:
        answer(http::status::not_found, "no such key\n");
        return;
      case KvOutcome::Created:
        answer(http::status::created, {});
        return;
      case KvOutcome::Replaced:
      case KvOutcome::Deleted:
        answer(http::status::no_content, {});
        return;
      case KvOutcome::Unavailable:
        answer(http::status::service_unavailable, "the store did not answer in time\n");
        return;
    }
  }

  // Writes the answer; then reads the next request, or closes if the client
  // asked to, `close` is set, or the server is stopping.
  void answer(http::status status, std::string body, bool close = false,
              const char* allow = nullptr, const char* type = kText) {
    if (state_ == State::Closed) return;
    state_ = State::Writing;
    keepAlive_ = keepAlive_ && !close && !shared_->stopping.load();
    response_ = http::response<http::string_body>();
    response_.result(status);
    response_.version(version_);
    if (!body.empty() || status == http::status::ok) response_.set(http::field::content_type, type);
    if (allow != nullptr) response_.set(http::field::allow, allow);
    response_.keep_alive(keepAlive_);
    response_.body() = std::move(body);
    response_.prepare_payload();
    stream_.expires_after(shared_->options.idleTimeout);
    http::async_write(stream_, response_, then(&Connection::onWritten));
  }

  void onWritten(beast::error_code error) {
    if (error) {
      close();
      return;
    }
    shared_->served.fetch_add(1, std::memory_order_relaxed);
    if (keepAlive_) {
      readHeader();
    } else {
      linger();
    }
  }

  // Closes our side, then reads and drops what the client still sends until
  // it closes too, for kLinger at most. Closing a socket with unread bytes
  // in it resets the connection, and a reset can destroy the answer before
  // the client has read it: a client whose body was refused (413) is
  // usually still sending it.
  void linger() {
    state_ = State::Lingering;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLinger);
    drain({});
  }

  void drain(beast::error_code error) {
    if (error) {
      close();
      return;
    }
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(4096), then(&Connection::drain));
  }

  void close() {
    if (state_ == State::Closed) return;
    state_ = State::Closed;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  std::shared_ptr<Shared<Store>> shared_;
  Home home_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  http::response<http::empty_body> continue_{http::status::continue_, 11};
  State state_ = State::Reading;
  bool keepAlive_ = false;
  unsigned version_ = 11;
};

}  // namespace detail
}  // namespace httpservice
