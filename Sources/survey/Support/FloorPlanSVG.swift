import FingerprintStore
import Foundation
import Positioning
import ScanFormats

/// A floor of a venue as an SVG picture for surveyors: a metric grid, the zones (their polygons, else the hull of their spots),
/// the beacons by state with their labels, the spots coloured by coverage or by cross-validated error (by
/// the venue's own terciles), and a legend. Plain SVG 1.1, no script, no external file: it opens in any browser and prints.
struct FloorPlanSVG {
    enum Colouring: Equatable {
        case coverage
        /// Mean leave-one-spot-out error in metres, by spot name.
        case error([String: Double])
    }

    let coverage: VenueCoverage
    let floor: Int
    let colouring: Colouring
    /// The floor's plan, drawn under everything else, embedded so the picture stands alone.
    var plan: StoredFloorPlan?
    /// Pixels per metre.
    let scale: Double = 24
    let margin: Double = 40

    func render(title: String) -> String {
        let spots = coverage.spots.filter { $0.spot.floor == floor }
        let beacons = coverage.beacons.filter { $0.beacon.floor == floor && $0.beacon.x != nil && $0.beacon.y != nil }
        let planCorners = plan?.corners.all ?? []
        let areas = coverage.zoneAreas.filter { $0.floor == floor }
        let vertices = areas.flatMap(\.polygon)
        let xs = spots.map(\.spot.x) + beacons.compactMap(\.beacon.x) + planCorners.map(\.x) + vertices.map(\.x)
        let ys = spots.map(\.spot.y) + beacons.compactMap(\.beacon.y) + planCorners.map(\.y) + vertices.map(\.y)
        let minX = (xs.min() ?? 0).rounded(.down) - 1, maxX = (xs.max() ?? 10).rounded(.up) + 1
        let minY = (ys.min() ?? 0).rounded(.down) - 1, maxY = (ys.max() ?? 10).rounded(.up) + 1
        let width = (maxX - minX) * scale + 2 * margin + 260, height = max((maxY - minY) * scale + 2 * margin, 320)
        // Venue y grows upwards, SVG y downwards.
        func px(_ x: Double) -> String { Self.number((x - minX) * scale + margin) }
        func py(_ y: Double) -> String { Self.number((maxY - y) * scale + margin) }

        var svg: [String] = []
        svg.append(##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Self.number(width))" height="\##(Self.number(height))" viewBox="0 0 \##(Self.number(width)) \##(Self.number(height))" font-family="sans-serif" font-size="11">"##)
        svg.append(##"<title>\##(Self.escape(title))</title>"##)
        svg.append(##"<rect width="100%" height="100%" fill="#ffffff"/>"##)
        if let plan {
            // The image as a unit square mapped onto its corners, so a rotated plan is drawn rotated:
            // matrix(a b c d e f) takes (u, v) to (a·u + c·v + e, b·u + d·v + f).
            func svgPoint(_ point: FloorPlanPlacement.Point) -> (Double, Double) {
                ((point.x - minX) * scale + margin, (maxY - point.y) * scale + margin)
            }
            let (topLeft, topRight, bottomLeft) = (svgPoint(plan.corners.topLeft), svgPoint(plan.corners.topRight), svgPoint(plan.corners.bottomLeft))
            let matrix = [topRight.0 - topLeft.0, topRight.1 - topLeft.1, bottomLeft.0 - topLeft.0, bottomLeft.1 - topLeft.1, topLeft.0, topLeft.1]
                .map { String(format: "%.3f", $0) }.joined(separator: " ")
            svg.append(##"<image id="plan" width="1" height="1" transform="matrix(\##(matrix))" preserveAspectRatio="none" opacity="0.9" href="data:\##(plan.image.mediaType.rawValue);base64,\##(plan.image.data.base64EncodedString())"/>"##)
        }
        // Grid: every metre, stronger and labelled every 5.
        svg.append(##"<g id="grid" stroke-width="1">"##)
        for x in stride(from: minX, through: maxX, by: 1) {
            let major = Int(x) % 5 == 0
            svg.append(##"<line x1="\##(px(x))" y1="\##(py(minY))" x2="\##(px(x))" y2="\##(py(maxY))" stroke="\##(major ? "#c3c9d2" : "#eceff3")"/>"##)
            if major { svg.append(##"<text x="\##(px(x))" y="\##(Self.number(height - margin + 14))" fill="#7b8494" text-anchor="middle">\##(Int(x)) m</text>"##) }
        }
        for y in stride(from: minY, through: maxY, by: 1) {
            let major = Int(y) % 5 == 0
            svg.append(##"<line x1="\##(px(minX))" y1="\##(py(y))" x2="\##(px(maxX))" y2="\##(py(y))" stroke="\##(major ? "#c3c9d2" : "#eceff3")"/>"##)
            if major { svg.append(##"<text x="\##(Self.number(margin - 6))" y="\##(py(y))" fill="#7b8494" text-anchor="end" dominant-baseline="middle">\##(Int(y)) m</text>"##) }
        }
        svg.append("</g>")
        // Zones: drawn polygons as they are, zones named only by spots as the hull of their spots.
        svg.append(##"<g id="zones" fill="#176b2c" fill-opacity="0.05" stroke="#176b2c" stroke-dasharray="6 4">"##)
        let drawn = Set(areas.map(\.name))
        let hulls = Dictionary(grouping: spots.filter { $0.spot.zone.map { !drawn.contains($0) } ?? false }, by: { $0.spot.zone! })
            .mapValues { members in Self.outline(members.map { ($0.spot.x, $0.spot.y) }) }
        let outlines = areas.map { ($0.name, $0.polygon.map { ($0.x, $0.y) }) } + hulls.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for (zone, hull) in outlines {
            let points = hull.map { "\(px($0.0)),\(py($0.1))" }.joined(separator: " ")
            svg.append(##"<polygon points="\##(points)"><title>\##(Self.escape(zone))</title></polygon>"##)
            let label = hull.min { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) } ?? hull[0]
            svg.append(##"<text x="\##(px(label.0))" y="\##(Self.number((maxY - label.1) * scale + margin - 8))" fill="#176b2c" fill-opacity="1" stroke="none" font-weight="bold">\##(Self.escape(zone))</text>"##)
        }
        svg.append("</g>")
        // Spots.
        svg.append(##"<g id="spots" stroke="#1d2430">"##)
        for spot in spots {
            let (fill, note) = colour(of: spot)
            let dash = spot.isThin ? ##" stroke-dasharray="2 2" stroke-width="2""## : ""
            svg.append(##"<circle class="spot\##(spot.isThin ? " thin" : "")" cx="\##(px(spot.spot.x))" cy="\##(py(spot.spot.y))" r="6" fill="\##(fill)"\##(dash)><title>\##(Self.escape(spot.spot.name)): \##(note)\##(spot.spot.zone.map { "; zone " + Self.escape($0) } ?? "")</title></circle>"##)
        }
        svg.append("</g>")
        // Beacons.
        svg.append(##"<g id="beacons">"##)
        for beacon in beacons {
            let x = px(beacon.beacon.x!), y = py(beacon.beacon.y!)
            let style = switch beacon.state {
            case .active: ##"fill="#1f5fbf" stroke="#ffffff""##
            case .retired: ##"fill="#9a9a9a" stroke="#ffffff""##
            case .replaced: ##"fill="#ffffff" stroke="#1f5fbf" stroke-dasharray="2 2""##
            }
            let name = beacon.beacon.label ?? beacon.beacon.id.description
            let detail = beacon.state == .replaced ? " (replaced by \(beacon.replacedBy?.description ?? "?"))" : beacon.state == .retired ? " (retired)" : ""
            svg.append(##"<rect class="beacon \##(beacon.state.rawValue)" x="\##(Self.number(Double(x)! - 6))" y="\##(Self.number(Double(y)! - 6))" width="12" height="12" \##(style) stroke-width="2"><title>\##(Self.escape(beacon.beacon.id.description + detail))</title></rect>"##)
            svg.append(##"<text x="\##(Self.number(Double(x)! + 9))" y="\##(Self.number(Double(y)! - 7))" fill="#1f3a66">\##(Self.escape(name))</text>"##)
        }
        svg.append("</g>")
        svg.append(legend(x: width - 250, title: title, spots: spots))
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    private func colour(of spot: VenueCoverage.SpotCoverage) -> (fill: String, note: String) {
        let counts = "\(spot.fingerprints) fingerprints, \(spot.medianBeacons) beacons each"
        switch colouring {
        case .coverage:
            if spot.isThin { return ("#d6452f", counts + "; thin: record again") }
            return spot.fingerprints >= 8 && spot.medianBeacons >= 5 ? ("#2e9d4c", counts) : ("#e0b422", counts + "; fair")
        case .error(let errors):
            guard let error = errors[spot.spot.name] else { return ("#cfd3da", counts + "; no cross-validated answer") }
            let note = String(format: "%.1f m mean error with the spot left out; ", error) + counts
            let (good, fair) = errorThresholds
            return (error <= good ? "#2e9d4c" : error <= fair ? "#e0b422" : "#d6452f", note)
        }
    }

    /// The venue's own terciles of the spots' errors: leaving a spot out places its queries on the
    /// neighbouring spots, so what is a bad error depends on how far apart the spots are.
    private var errorThresholds: (good: Double, fair: Double) {
        guard case .error(let errors) = colouring, !errors.isEmpty else { return (0, 0) }
        let sorted = errors.values.sorted()
        return (sorted[(sorted.count - 1) / 3], sorted[2 * (sorted.count - 1) / 3])
    }

    private func legend(x: Double, title: String, spots: [VenueCoverage.SpotCoverage]) -> String {
        let left = Self.number(x)
        var lines: [String] = [##"<g id="legend" transform="translate(\##(left) 40)">"##]
        lines.append(##"<text font-size="13" font-weight="bold">\##(Self.escape(title))</text>"##)
        let swatches: [(String, String)]
        switch colouring {
        case .coverage:
            swatches = [("#2e9d4c", "spot: 8+ fingerprints, 5+ beacons"), ("#e0b422", "spot: fair"), ("#d6452f", "thin: < 3 fingerprints or beacons")]
        case .error:
            let (good, fair) = errorThresholds
            swatches = [
                ("#2e9d4c", String(format: "spot: error ≤ %.1f m (spot left out)", good)),
                ("#e0b422", String(format: "spot: %.1f to %.1f m", good, fair)),
                ("#d6452f", String(format: "spot: over %.1f m (worst third)", fair)), ("#cfd3da", "no answer"),
            ]
        }
        var y = 24.0
        for (fill, text) in swatches {
            lines.append(##"<circle cx="6" cy="\##(Self.number(y))" r="6" fill="\##(fill)" stroke="#1d2430"/><text x="18" y="\##(Self.number(y + 4))">\##(Self.escape(text))</text>"##)
            y += 20
        }
        for (style, text) in [(##"fill="#1f5fbf""##, "beacon"), (##"fill="#9a9a9a""##, "retired beacon"), (##"fill="#ffffff" stroke="#1f5fbf" stroke-dasharray="2 2""##, "replaced beacon")] {
            lines.append(##"<rect x="0" y="\##(Self.number(y - 6))" width="12" height="12" \##(style) stroke-width="2"/><text x="18" y="\##(Self.number(y + 4))">\##(text)</text>"##)
            y += 20
        }
        lines.append(##"<line x1="0" y1="\##(Self.number(y))" x2="12" y2="\##(Self.number(y))" stroke="#176b2c" stroke-dasharray="6 4"/><text x="18" y="\##(Self.number(y + 4))">\##(coverage.zoneAreas.isEmpty ? "zone (hull of its spots)" : "zone")</text>"##)
        y += 28
        let thin = spots.filter(\.isThin).map(\.spot.name)
        lines.append(##"<text x="0" y="\##(Self.number(y))">\##(spots.count) spots, \##(thin.count) thin\##(thin.isEmpty ? "" : ":")</text>"##)
        for name in thin.prefix(12) {
            y += 16
            lines.append(##"<text x="10" y="\##(Self.number(y))" fill="#d6452f">\##(Self.escape(name))</text>"##)
        }
        lines.append("</g>")
        return lines.joined(separator: "\n")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// A zone's outline: the convex hull of its spots, or, for spots in a line or a single spot, a
    /// rectangle 1.5 m around them.
    static func outline(_ points: [(Double, Double)]) -> [(Double, Double)] {
        let hull = convexHull(points)
        if hull.count >= 3 { return hull }
        let (a, b) = (hull[0], hull.count == 2 ? hull[1] : hull[0])
        let length = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
        let (ux, uy) = length > 0 ? ((b.0 - a.0) / length, (b.1 - a.1) / length) : (1.0, 0.0)
        let pad = 1.5
        return [
            (a.0 - pad * ux - pad * uy, a.1 - pad * uy + pad * ux), (b.0 + pad * ux - pad * uy, b.1 + pad * uy + pad * ux),
            (b.0 + pad * ux + pad * uy, b.1 + pad * uy - pad * ux), (a.0 - pad * ux + pad * uy, a.1 - pad * uy - pad * ux),
        ]
    }

    static func convexHull(_ points: [(Double, Double)]) -> [(Double, Double)] {
        let sorted = points.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        guard sorted.count >= 3 else { return sorted }
        func cross(_ o: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
            (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
        }
        var lower: [(Double, Double)] = [], upper: [(Double, Double)] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
