// The metrics endpoint (ActorSystemOptions::withMetricsEndpoint): a small
// HTTP/1.1 server with Boost.Beast on isolate 0's io_context, run by that
// isolate's loop like any other I/O. `GET /metrics` gets the Prometheus
// text of a snapshot (runtime/metrics/Metrics.cpp); anything else a 404 or a 405.
// One request per connection: a scraper connects, asks, and is answered
// with Connection: close.
//
// Lifetimes: the listener and each connection are shared by the handlers
// Asio holds for them, so a handler never outlives what it uses, whether it
// runs, is aborted, or is destroyed unrun with the io_context. The system
// closes the listener on isolate 0 when it shuts down, and before teardown.
#include "runtime/metrics/MetricsEndpoint.hpp"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "coreactor/Asio.hpp"
#include "runtime/SystemCore.hpp"

namespace coreactor {
namespace detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// A request's headers and body may not take more than this: a scraper sends
// a few hundred bytes.
constexpr std::size_t kRequestLimit = 8 * 1024;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(SystemCore& core, Isolate& home, tcp::socket socket)
      : core_(core), home_(home), socket_(std::move(socket)) {}

  void start() {
    parser_.header_limit(kRequestLimit);
    parser_.body_limit(kRequestLimit);
    http::async_read(socket_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) {
                       self->onRequest(error);
                     });
  }

 private:
  void onRequest(beast::error_code error) {
    if (error) {
      if (error != http::error::end_of_stream && error != asio::error::operation_aborted) {
        respond(http::status::bad_request, "a request that does not parse\n");
      }
      return;
    }
    const auto& request = parser_.get();
    if (request.target() != "/metrics") {
      respond(http::status::not_found, "the metrics are at /metrics\n");
      return;
    }
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      respond(http::status::method_not_allowed, "GET or HEAD\n");
      return;
    }
    head_ = request.method() == http::verb::head;
    // The snapshot comes on whichever loop read last; the answer is written
    // on this connection's loop.
    core_.metrics().collectMetrics([self = shared_from_this()](MetricsSnapshot snapshot) {
      Isolate& home = self->home_;
      auto text = std::make_shared<std::string>(snapshot.prometheusText());
      try {
        home.post([self, text] { self->respond(http::status::ok, std::move(*text)); });
      } catch (const std::system_error&) {
        // Isolate 0 stopped: the connection goes with it.
      }
    });
  }

  void respond(http::status status, std::string body) {
    response_.result(status);
    response_.version(11);
    response_.set(http::field::server, "coreactor");
    response_.set(http::field::content_type, status == http::status::ok
                                                 ? "text/plain; version=0.0.4; charset=utf-8"
                                                 : "text/plain; charset=utf-8");
    if (status == http::status::method_not_allowed) response_.set(http::field::allow, "GET, HEAD");
    response_.keep_alive(false);
    response_.body() = std::move(body);
    response_.prepare_payload();
    if (head_) response_.body().clear();
    http::async_write(socket_, response_,
                      [self = shared_from_this()](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        self->socket_.shutdown(tcp::socket::shutdown_both, ignored);
                      });
  }

  SystemCore& core_;
  Isolate& home_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> response_;
  bool head_ = false;
};

}  // namespace

struct MetricsEndpoint::Listener : std::enable_shared_from_this<Listener> {
  Listener(SystemCore& core, Isolate& home) : core(core), home(home), acceptor(home.ioContext()) {}

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code error, tcp::socket socket) {
      if (error == asio::error::operation_aborted || !self->acceptor.is_open()) return;
      if (!error) std::make_shared<Connection>(self->core, self->home, std::move(socket))->start();
      self->accept();
    });
  }

  SystemCore& core;
  Isolate& home;
  tcp::acceptor acceptor;
};

MetricsEndpoint::MetricsEndpoint(SystemCore& core, Isolate& home, const std::string& address,
                                 std::uint16_t port)
    : home_(home), listener_(std::make_shared<Listener>(core, home)) {
  const tcp::endpoint at(asio::ip::make_address(address), port);
  tcp::acceptor& acceptor = listener_->acceptor;
  acceptor.open(at.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(at);
  acceptor.listen();
  port_ = acceptor.local_endpoint().port();
  // The first accept is started on the loop that owns the io_context.
  home_.post([listener = listener_] { listener->accept(); });
}

MetricsEndpoint::~MetricsEndpoint() {
  close();
}

void MetricsEndpoint::close() noexcept {
  // On the loop if it runs (Asio objects belong to their loop's thread);
  // here once no loop runs.
  auto listener = listener_;
  const auto shut = [listener]() noexcept {
    beast::error_code ignored;
    listener->acceptor.close(ignored);
  };
  try {
    if (!home_.stopped() && !home_.isLoopThread()) {
      home_.post(shut);
      return;
    }
  } catch (const std::system_error&) {
    // It stopped meanwhile: no loop runs it any more.
  }
  shut();
}

}  // namespace detail

ActorSystemOptions ActorSystemOptions::withMetricsEndpoint(std::uint16_t port,
                                                           std::string address) const {
  boost::system::error_code error;
  boost::asio::ip::make_address(address, error);
  if (error) {
    throwError(Error::ErrInvalidOption, "withMetricsEndpoint: \"" + address +
                                            "\" is no IP address (" + error.message() + ")");
  }
  ActorSystemOptions o = *this;
  o.metricsPort_ = port;
  o.metricsAddress_ = std::move(address);
  return o;
}

}  // namespace coreactor
