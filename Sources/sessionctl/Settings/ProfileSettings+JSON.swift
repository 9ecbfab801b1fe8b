import SessionKit
import SessionKitSupport

/// Reading `config.json` with SessionKit's JSON parser instead of `JSONDecoder`: every `sessionctl token`
/// reads it, and `Codable` decoding costs more than the rest of that command (see `Benchmarks/cli.sh`). Writing
/// stays with `JSONEncoder`; the tests check that what `configure` writes reads back the same.
extension ConfigFile {
    /// Reads the config file's JSON; a member of the wrong type is an error naming it.
    init(json value: JSONValue) throws(ConfigFormatError) {
        guard let object = value.objectValue else { throw ConfigFormatError(path: "", reason: "not an object") }
        var profiles: [String: ProfileSettings] = [:]
        if let listed = object.member("profiles") {
            guard let listed = listed.objectValue else {
                throw ConfigFormatError(path: "profiles", reason: "not an object")
            }
            for (name, value) in listed {
                profiles[name] = try ProfileSettings(json: value, at: "profiles.\(name)")
            }
        }
        self.init(profiles: profiles)
    }
}

extension ProfileSettings {
    init(json value: JSONValue, at path: String) throws(ConfigFormatError) {
        guard let object = value.objectValue else { throw ConfigFormatError(path: path, reason: "not an object") }
        let read = ConfigFormatError.Reader(object: object, path: path)
        self.init()
        issuer = try read.string(CodingKeys.issuer.rawValue)
        clientID = try read.string(CodingKeys.clientID.rawValue)
        audience = try read.string(CodingKeys.audience.rawValue)
        scope = try read.string(CodingKeys.scope.rawValue)
        redirectPort = try read.int(CodingKeys.redirectPort.rawValue)
        redirectURI = try read.string(CodingKeys.redirectURI.rawValue)
        clientAuth = try read.string(CodingKeys.clientAuth.rawValue)
        clientSecretInStore = try read.bool(CodingKeys.clientSecretInStore.rawValue)
        dpop = try read.bool(CodingKeys.dpop.rawValue)
        gitHosts = try read.strings(CodingKeys.gitHosts.rawValue)
        caFile = try read.string(CodingKeys.caFile.rawValue)
        if let endpoints = object.member(CodingKeys.endpoints.rawValue) {
            guard let members = endpoints.objectValue else {
                throw ConfigFormatError(path: "\(path).endpoints", reason: "not an object")
            }
            let inner = ConfigFormatError.Reader(object: members, path: "\(path).endpoints")
            self.endpoints = Endpoints(
                authorization: try inner.string("authorization"), token: try inner.string("token"),
                userInfo: try inner.string("userInfo"), revocation: try inner.string("revocation"),
                deviceAuthorization: try inner.string("deviceAuthorization"), jwks: try inner.string("jwks"))
        }
    }
}

/// A member of `config.json` with the wrong type.
struct ConfigFormatError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { path.isEmpty ? reason : "\(path) is \(reason)" }

    /// Typed optional members of one object.
    struct Reader {
        let object: [String: JSONValue]
        let path: String

        func string(_ name: String) throws(ConfigFormatError) -> String? {
            guard let value = object.member(name) else { return nil }
            guard let text = value.stringValue else {
                throw ConfigFormatError(path: "\(path).\(name)", reason: "not a string")
            }
            return text
        }

        func strings(_ name: String) throws(ConfigFormatError) -> [String]? {
            guard let value = object.member(name) else { return nil }
            guard let items = value.arrayValue, case let texts = items.compactMap(\.stringValue),
                texts.count == items.count
            else {
                throw ConfigFormatError(path: "\(path).\(name)", reason: "not a list of strings")
            }
            return texts
        }

        func int(_ name: String) throws(ConfigFormatError) -> Int? {
            guard let value = object.member(name) else { return nil }
            guard let number = value.intValue else {
                throw ConfigFormatError(path: "\(path).\(name)", reason: "not an integer")
            }
            return number
        }

        func bool(_ name: String) throws(ConfigFormatError) -> Bool? {
            guard let value = object.member(name) else { return nil }
            guard let flag = value.boolValue else {
                throw ConfigFormatError(path: "\(path).\(name)", reason: "not true or false")
            }
            return flag
        }
    }
}
