// runtime/cluster/Remote.cpp — the registry of remote types and the frames
// (coreactor/Remote.hpp).
#include "coreactor/Remote.hpp"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "runtime/Hash.hpp"

namespace coreactor {
namespace detail {
namespace {

/// Every remote type of the process, by id and by MessageType. Entries are
/// never removed: a type registered stays registered.
struct Registry {
  std::mutex mutex;
  std::deque<std::string> names;  // stable addresses for RemoteType::name
  std::unordered_map<RemoteTypeId, RemoteType> byId;
  std::unordered_map<const MessageType*, RemoteTypeId> byType;

  static Registry& instance() {
    static Registry registry;
    return registry;
  }
};

}  // namespace

RemoteTypeId registerRemote(std::string_view name, RemoteType entry) {
  if (name.empty()) throwError(Error::ErrInvalidOption, "a remote type's name is empty");
  const RemoteTypeId id = wire::idOf(name);
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (const auto it = registry.byId.find(id); it != registry.byId.end()) {
    const RemoteType& known = it->second;
    if (known.type == entry.type && known.name == name) return id;  // the same again
    throwError(Error::ErrRemoteTypeClash,
               "remote type name \"" + std::string(name) + "\" (id " + std::to_string(id) +
                   ") is already registered for " + std::string(known.type->name) +
                   (known.name == name ? "" : " as \"" + std::string(known.name) + "\""));
  }
  if (const auto it = registry.byType.find(entry.type); it != registry.byType.end()) {
    throwError(Error::ErrRemoteTypeClash, std::string(entry.type->name) +
                                              " is already registered as \"" +
                                              std::string(registry.byId.at(it->second).name) +
                                              "\", not \"" + std::string(name) + "\"");
  }
  registry.names.emplace_back(name);
  entry.name = registry.names.back();
  entry.id = id;
  registry.byId.emplace(id, entry);
  registry.byType.emplace(entry.type, id);
  return id;
}

namespace {

/// The entry of `type`, or nullptr; the caller holds no lock.
bool findByType(const MessageType* type, RemoteType& out) {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const auto it = registry.byType.find(type);
  if (it == registry.byType.end()) return false;
  out = registry.byId.at(it->second);
  return true;
}

bool findById(RemoteTypeId id, RemoteType& out) {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const auto it = registry.byId.find(id);
  if (it == registry.byId.end()) return false;
  out = it->second;
  return true;
}

}  // namespace
}  // namespace detail

namespace wire {

RemoteTypeId idOf(std::string_view name) noexcept {
  return detail::fnv1a(name);
}

bool isRegistered(const Message& message) {
  detail::RemoteType entry;
  const detail::MessageType* type = detail::MessageAccess::type(message);
  return type != nullptr && detail::findByType(type, entry);
}

std::string_view nameOf(RemoteTypeId id) {
  detail::RemoteType entry;
  return detail::findById(id, entry) ? entry.name : std::string_view();
}

void encode(const Message& message, std::string& out) {
  detail::RemoteType entry;
  const detail::MessageType* type = detail::MessageAccess::type(message);
  if (type == nullptr) throwError(Error::ErrNotSerializable, "an empty message cannot cross");
  if (!detail::findByType(type, entry)) {
    throwError(Error::ErrNotSerializable,
               std::string(type->name) +
                   " is not registered to cross between processes (registerRemoteType)");
  }
  const std::size_t start = out.size();
  out.resize(start + kHeaderSize);
  try {
    entry.encode(message, out);
  } catch (...) {
    out.resize(start);
    throw;
  }
  const std::size_t length = out.size() - start - kHeaderSize;
  if (length > UINT32_MAX) {
    out.resize(start);
    throwError(Error::ErrNotSerializable, std::string(type->name) + " encodes to " +
                                              std::to_string(length) +
                                              " bytes, more than a frame holds (4 GiB)");
  }
  const auto length32 = static_cast<std::uint32_t>(length);
  std::memcpy(out.data() + start, &entry.id, sizeof(entry.id));
  std::memcpy(out.data() + start + sizeof(entry.id), &length32, sizeof(length32));
}

Message decode(std::string_view bytes, std::size_t& used) {
  if (bytes.size() < kHeaderSize) {
    throwError(Error::ErrMalformedFrame, "a frame of " + std::to_string(bytes.size()) +
                                             " bytes is shorter than its header (" +
                                             std::to_string(kHeaderSize) + ")");
  }
  RemoteTypeId id = 0;
  std::uint32_t length = 0;
  std::memcpy(&id, bytes.data(), sizeof(id));
  std::memcpy(&length, bytes.data() + sizeof(id), sizeof(length));
  if (bytes.size() - kHeaderSize < length) {
    throwError(Error::ErrMalformedFrame, "a frame announces " + std::to_string(length) +
                                             " bytes and holds " +
                                             std::to_string(bytes.size() - kHeaderSize));
  }
  detail::RemoteType entry;
  if (!detail::findById(id, entry)) {
    throwError(Error::ErrUnknownRemoteType,
               "remote type id " + std::to_string(id) + " is not registered in this process");
  }
  Message message = entry.decode(bytes.substr(kHeaderSize, length));
  used = kHeaderSize + length;
  return message;
}

}  // namespace wire
}  // namespace coreactor
