import Positioning
import ScanFormats

/// SVG floor plans drawn from a simulated venue's own walls, so the plan shows exactly what the signals
/// cross: the hall's outline in light grey, the walls in dark grey (thicker the more they attenuate), on
/// the floor's ``FloorPlanPlacement`` at 10 pixels per metre.
extension SimulatedVenue {
    /// Pixels per venue metre of the drawn plans.
    public static let planPixelsPerMetre = 10.0

    /// The SVG of floor `level`'s plan, laid as its placement says; nil when the floor has no plan or the
    /// venue no ``outline``, and for a plan placed by reference points (a surveyor's own image). The same
    /// venue writes the same bytes.
    public func floorPlanSVG(level: Int) -> String? {
        guard let floor = definition.floors.first(where: { $0.level == level }), let outline,
              case .corners(let topLeft, let bottomRight) = floor.plan?.anchoring
        else { return nil }
        let plan = (topLeft: topLeft, bottomRight: bottomRight)
        let scale = Self.planPixelsPerMetre
        let width = (plan.bottomRight.x - plan.topLeft.x) * scale
        let height = (plan.topLeft.y - plan.bottomRight.y) * scale
        // Venue metres to image pixels: x to the right, y up the image.
        func px(_ x: Double) -> String { Self.number((x - plan.topLeft.x) * scale) }
        func py(_ y: Double) -> String { Self.number((plan.topLeft.y - y) * scale) }
        var lines = [
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Self.number(width))" height="\##(Self.number(height))" viewBox="0 0 \##(Self.number(width)) \##(Self.number(height))">"##,
            "  <title>\(Self.escaped(definition.name)): \(Self.escaped(floor.name)) (floor \(level))</title>",
            ##"  <rect x="0" y="0" width="\##(Self.number(width))" height="\##(Self.number(height))" fill="#ffffff"/>"##,
            ##"  <rect x="\##(px(outline.minX))" y="\##(py(outline.maxY))" width="\##(Self.number((outline.maxX - outline.minX) * scale))" height="\##(Self.number((outline.maxY - outline.minY) * scale))" fill="#f7f7f5" stroke="#c8c8c8" stroke-width="3"/>"##,
        ]
        for wall in walls where wall.floor == level {
            // 4 dB glass draws thin, 10 dB concrete thick.
            let stroke = Self.number((wall.loss / 2).rounded())
            lines.append(
                ##"  <line x1="\##(px(wall.x1))" y1="\##(py(wall.y1))" x2="\##(px(wall.x2))" y2="\##(py(wall.y2))" stroke="#555555" stroke-width="\##(stroke)" stroke-linecap="square"/>"##)
        }
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A coordinate as SVG text: an integer without a fraction, otherwise two decimals at most.
    static func number(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        if hundredths.truncatingRemainder(dividingBy: 100) == 0 { return String(Int(hundredths / 100)) }
        var text = String(Double(hundredths) / 100)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
