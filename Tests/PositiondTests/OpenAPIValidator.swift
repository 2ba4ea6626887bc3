import Foundation
@testable import positiond
import Testing

/// Validates responses against positiond's OpenAPI document: the operation is found by method, path and
/// status, and the body is checked against its JSON Schema (the subset the document uses: type,
/// properties, required, additionalProperties, items, enum, const, oneOf, minItems, minimum, maximum,
/// minLength, maxLength, $ref). Booleans are not told apart from 0 and 1 (Linux Foundation reads both as
/// NSNumber); the document has no boolean.
struct OpenAPIValidator: Sendable {
    nonisolated(unsafe) let document: [String: Any]

    static let shared = OpenAPIValidator(json: OpenAPIDocument.json)

    init(json: String) {
        document = try! JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
    }

    /// The problems of a response, empty when it conforms.
    func problems(method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        let paths = document["paths"] as! [String: Any]
        let route = path.split(separator: "?").first.map(String.init) ?? path
        guard let (template, item) = paths.first(where: { Self.matches(template: $0.key, path: route) }) else {
            return ["no path of the document matches \(route)"]
        }
        guard let operation = (item as? [String: Any])?[method.lowercased()] as? [String: Any] else {
            return ["\(template) has no \(method) operation"]
        }
        guard var response = (operation["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["\(method) \(template) does not document status \(status)"]
        }
        if let reference = response["$ref"] as? String { response = resolve(reference) }
        guard let content = response["content"] as? [String: Any] else {
            return body.isEmpty ? [] : ["\(method) \(template) \(status) documents no body"]
        }
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let media = content[mediaType] as? [String: Any], let schema = media["schema"] as? [String: Any] else {
            return ["\(method) \(template) \(status) does not document content type '\(mediaType)'"]
        }
        if mediaType == "text/plain" { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return ["the body is not JSON: \(String(decoding: body, as: UTF8.self).prefix(200))"]
        }
        return validate(value, against: schema, at: "$")
    }

    static func matches(template: String, path: String) -> Bool {
        let t = template.split(separator: "/"), p = path.split(separator: "/")
        guard t.count == p.count else { return false }
        return zip(t, p).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }

    func resolve(_ reference: String) -> [String: Any] {
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") { node = (node as! [String: Any])[String(part)]! }
        return node as! [String: Any]
    }

    func validate(_ value: Any, against schema: [String: Any], at path: String) -> [String] {
        if let reference = schema["$ref"] as? String { return validate(value, against: resolve(reference), at: path) }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let passing = options.filter { validate(value, against: $0, at: path).isEmpty }.count
            return passing == 1 ? [] : ["\(path): matches \(passing) of the oneOf schemas, not exactly 1"]
        }
        var problems: [String] = []
        if let constant = schema["const"] {
            if "\(constant)" != "\(value)" { problems.append("\(path): \(value) is not \(constant)") }
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) {
            problems.append("\(path): \(value) is not one of \(allowed)")
        }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return ["\(path): expected an object"] }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for required in schema["required"] as? [String] ?? [] where object[required] == nil {
                problems.append("\(path): missing required '\(required)'")
            }
            for (key, child) in object {
                if let property = properties[key] as? [String: Any] {
                    problems += validate(child, against: property, at: "\(path).\(key)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(child, against: additional, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): unexpected property '\(key)'")
                }
            }
        case "array":
            guard let array = value as? [Any] else { return ["\(path): expected an array"] }
            if let minimum = schema["minItems"] as? Int, array.count < minimum { problems.append("\(path): fewer than \(minimum) items") }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { problems += validate(item, against: items, at: "\(path)[\(index)]") }
            }
        case "string":
            guard let string = value as? String else { return ["\(path): expected a string, got \(value)"] }
            if let minimum = schema["minLength"] as? Int, string.count < minimum { problems.append("\(path): shorter than \(minimum)") }
            if let maximum = schema["maxLength"] as? Int, string.count > maximum { problems.append("\(path): longer than \(maximum)") }
        case "integer":
            guard let number = value as? NSNumber, number.doubleValue.rounded() == number.doubleValue else {
                return ["\(path): expected an integer, got \(value)"]
            }
            problems += bounds(number.doubleValue, schema, path)
        case "number":
            guard let number = value as? NSNumber else { return ["\(path): expected a number, got \(value)"] }
            problems += bounds(number.doubleValue, schema, path)
        default:
            break
        }
        return problems
    }

    private func bounds(_ number: Double, _ schema: [String: Any], _ path: String) -> [String] {
        var problems: [String] = []
        if let minimum = schema["minimum"] as? Double, number < minimum { problems.append("\(path): \(number) < \(minimum)") }
        if let maximum = schema["maximum"] as? Double, number > maximum { problems.append("\(path): \(number) > \(maximum)") }
        return problems
    }
}
