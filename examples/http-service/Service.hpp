// examples/http-service/Service.hpp — the HTTP/1.1 server of the example,
// over any store: the actor shards of Shards.hpp in the example, a map behind
// a mutex in the plain arm of bench/http/HttpBench.cpp. Both arms run this same
// code; only the store and the executors differ. One connection's life is in
// Connection.hpp.
//
// One acceptor hands each connection to the next home in turn (round-robin);
// a home is where the connection's socket and every handler of it run: an
// isolate's io_context for the actor store, a strand of the one shared
// io_context for the plain arm. A connection reads one request, hands it to
// the store, writes the answer and reads the next (keep-alive, pipelining in
// order); the store calls back on the connection's home, so a connection is
// only ever touched by one thread at a time.
//
// A store provides:
//   Home nextHome();                                 where the next connection lives
//   asio::any_io_executor acceptorExecutor();        where the acceptor runs
//   void kv(const Home&, KvRequest&&, Done&& done);  done(KvAnswer) on that home
//   static constexpr bool kMetrics;                  serves GET /metrics if true, with
//   void metrics(const Home&, Done&& done);          done(std::string) on that home
//
// Stop: stop() closes the acceptor, closes the connections waiting for a
// request, lets those with a request in flight answer it (with Connection:
// close) and waits until every connection has closed, up to a grace period.
// The store must outlive the server's connections: stop() before the store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <coreactor/Asio.hpp>

#include "Connection.hpp"

namespace httpservice {
namespace detail {

template <class Store>
void Shared<Store>::accept() {
  Home home = store.nextHome();
  const asio::any_io_executor executor = home.executor;
  acceptor.async_accept(executor, [self = this->shared_from_this(), home = std::move(home)](
                                      beast::error_code error, tcp::socket socket) mutable {
    if (error == asio::error::operation_aborted || !self->acceptor.is_open()) return;
    if (!error) {
      std::make_shared<Connection<Store>>(self, std::move(home), std::move(socket))->start();
      self->accept();
      return;
    }
    // Out of descriptors, or the like: try again after a pause, not in a spin.
    self->retry.expires_after(std::chrono::milliseconds(100));
    self->retry.async_wait([self](beast::error_code e) {
      if (!e && self->acceptor.is_open()) self->accept();
    });
  });
}

}  // namespace detail

template <class Store>
class Server {
 public:
  // Binds and listens (std::system_error if it cannot); accepts after start().
  Server(Store& store, ServerOptions options)
      : shared_(std::make_shared<detail::Shared<Store>>(store, std::move(options))) {
    const tcp::endpoint at(asio::ip::make_address(shared_->options.address), shared_->options.port);
    tcp::acceptor& acceptor = shared_->acceptor;
    acceptor.open(at.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(at);
    acceptor.listen(asio::socket_base::max_listen_connections);
    port_ = acceptor.local_endpoint().port();
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() { stop(std::chrono::seconds(0)); }

  std::uint16_t port() const noexcept { return port_; }
  // Answers written in full so far. Any thread.
  std::uint64_t served() const noexcept { return shared_->served.load(); }

  // Starts accepting, on the acceptor's executor. Any thread.
  void start() {
    asio::post(shared_->acceptor.get_executor(), [s = shared_] { s->accept(); });
  }

  // Stops accepting, closes the idle connections, lets requests in flight be
  // answered and waits for every connection to close, `grace` at most. True
  // if all closed in time. Any thread but a home's; idempotent.
  bool stop(std::chrono::nanoseconds grace) {
    const auto s = shared_;
    if (!s->stopping.exchange(true)) {
      asio::post(s->acceptor.get_executor(), [s] {
        beast::error_code ignored;
        s->acceptor.close(ignored);
        s->retry.cancel();
      });
      std::vector<typename detail::Shared<Store>::Entry> open;
      {
        const std::lock_guard lock(s->mutex);
        for (const auto& [c, entry] : s->live) open.push_back(entry);
      }
      for (auto& entry : open) {
        asio::post(entry.executor, [c = std::move(entry.connection)] {
          if (auto connection = c.lock()) connection->closeIfIdle();
        });
      }
    }
    std::unique_lock lock(s->mutex);
    return s->allClosed.wait_for(lock, grace, [&] { return s->live.empty(); });
  }

 private:
  std::shared_ptr<detail::Shared<Store>> shared_;
  std::uint16_t port_ = 0;
};

}  // namespace httpservice
