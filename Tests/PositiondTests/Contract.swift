import Foundation
import positiond
import ScanFormats

/// Checks a response against openapi.yaml through the generated types: the document says which schema
/// the operation answers with at that status, and the generated type of that schema must decode the body.
/// Generated decoders refuse missing required members, unknown members where the schema forbids them,
/// values outside an enum and wrong types, so a body that drifts from the contract fails the test.
// Unchecked: the parsed document is never mutated after `init`.
struct Contract: @unchecked Sendable {
    /// The generated type of each schema that a response names; every such schema must be listed
    /// (``undecodableSchemas`` finds the ones that are not).
    static var types: [String: any Decodable.Type] {
        [
        "Error": Components.Schemas._Error.self,
        "Health": Components.Schemas.Health.self,
        "Readiness": Components.Schemas.Readiness.self,
        "VenueList": Components.Schemas.VenueList.self,
        "Venue": Components.Schemas.Venue.self,
        "Locate": Components.Schemas.Locate.self,
        "Proximity": Components.Schemas.Proximity.self,
        "Device": Components.Schemas.Device.self,
        "LiveMessage": Components.Schemas.LiveMessage.self,
        "Coverage": Components.Schemas.Coverage.self,
        "Presence": Components.Schemas.Presence.self,
        "Dwell": Components.Schemas.Dwell.self,
        "Funnel": Components.Schemas.Funnel.self,
        "Heatmap": Components.Schemas.Heatmap.self,
        "HistoryRecording": Components.Schemas.HistoryRecording.self,
        "LiveTicket": Components.Schemas.LiveTicket.self,
        "SurveySession": Components.Schemas.SurveySession.self,
        "SurveyBatchReceipt": Components.Schemas.SurveyBatchReceipt.self,
        "SurveySessionCoverage": Components.Schemas.SurveySessionCoverage.self,
        "BeaconHealthReport": Components.Schemas.BeaconHealthReport.self,
        "BeaconHealthHistory": Components.Schemas.BeaconHealthHistory.self,
        "BeaconHealthChange": Components.Schemas.BeaconHealthChange.self,
        "BeaconProposal": Components.Schemas.BeaconProposal.self,
        "ProposalDecision": Components.Schemas.ProposalDecision.self,
        ]
    }

    static let shared: Result<Contract, any Error> = Result { try Contract(document: APIDocument()) }

    private let paths: [(pattern: Regex<AnyRegexOutput>, template: String, item: [String: Any])]
    private let components: [String: Any]

    init(document: APIDocument) throws {
        let root = try JSONSerialization.jsonObject(with: document.json) as? [String: Any] ?? [:]
        components = root["components"] as? [String: Any] ?? [:]
        paths = try (root["paths"] as? [String: Any] ?? [:]).map { template, item in
            let pattern = "^" + template.replacing(#/\{[^}]+\}/#, with: "[^/]+") + "$"
            return (try Regex(pattern), template, item as? [String: Any] ?? [:])
        }
    }

    /// What is wrong with a response of `method path` with `status`; empty when it is what the document says.
    func problems(method: String, path: String, status: Int, contentType: String?, body: Data) -> [String] {
        let route = String(path.split(separator: "?", maxSplits: 1).first ?? "")
        guard let (_, template, item) = paths.first(where: { route.wholeMatch(of: $0.pattern) != nil }) else {
            return ["\(route) is not a path of the document"]
        }
        guard let operation = item[method.lowercased()] as? [String: Any] else {
            return ["\(method) \(template) is not an operation of the document"]
        }
        guard var response = (operation["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["\(status) is not a documented response of \(method) \(template)"]
        }
        if let reference = response["$ref"] as? String { response = resolve(reference) }
        guard let content = response["content"] as? [String: Any] else {
            return body.isEmpty ? [] : ["\(method) \(template) \(status) documents no body, got \(body.count) bytes"]
        }
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let media = content[mediaType] as? [String: Any] else {
            return ["content type '\(contentType ?? "none")' is not documented for \(method) \(template) \(status) (\(content.keys.sorted()))"]
        }
        return problems(of: body, against: media["schema"] as? [String: Any] ?? [:], mediaType: mediaType)
    }

    /// What is wrong with `body` as a value of `schema`, decoding with the generated type of a named schema.
    func problems(of body: Data, against schema: [String: Any], mediaType: String = "application/json") -> [String] {
        if let reference = schema["$ref"] as? String {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let type = Self.types[name] else { return ["schema \(name) has no generated type in Contract.types"] }
            do {
                _ = try APIJSON.decoder.decode(type, from: body)
                return []
            } catch {
                return ["not a \(name): \(error)"]
            }
        }
        switch (mediaType, schema["type"] as? String) {
        case ("application/json", "object"):
            return (try? JSONSerialization.jsonObject(with: body)) is [String: Any] ? [] : ["not a JSON object"]
        case (let text, "string") where text.hasPrefix("text/"):
            return String(data: body, encoding: .utf8) == nil ? ["not UTF-8 text"] : []
        case ("image/png", "string"), ("image/jpeg", "string"), ("image/svg+xml", "string"):
            // Binary content: the media type must be what the bytes are.
            return PlanMediaType(magic: body)?.rawValue == mediaType ? [] : ["the body is not \(mediaType)"]
        default:
            return ["no check for \(mediaType) schema \(schema)"]
        }
    }

    /// The response schemas the document names that ``types`` does not list.
    var undecodableSchemas: [String] {
        var named: Set<String> = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String, reference.hasPrefix("#/components/schemas/") {
                    named.insert(String(reference.dropFirst("#/components/schemas/".count)))
                }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        for (_, _, item) in paths {
            for case let operation as [String: Any] in item.values {
                (operation["responses"] as? [String: Any])?.values.forEach { response in
                    let resolved = (response as? [String: Any])?["$ref"].flatMap { $0 as? String }.map(resolve) ?? response
                    ((resolved as? [String: Any])?["content"] as? [String: Any])?.values.forEach { media in
                        if let schema = (media as? [String: Any])?["schema"] { collect(schema) }
                    }
                }
            }
        }
        return named.subtracting(Self.types.keys).sorted()
    }

    private func resolve(_ reference: String) -> [String: Any] {
        let parts = reference.split(separator: "/").dropFirst(2)  // "#", "components"
        var node: Any = components
        for part in parts { node = (node as? [String: Any])?[String(part)] ?? [:] }
        return node as? [String: Any] ?? [:]
    }
}
