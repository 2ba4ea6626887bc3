/// Where a survey or test sample was really taken.
public struct GroundTruth: Hashable, Sendable, Codable {
    public var spot: String?
    public var x: Double
    public var y: Double
    public var floor: Int

    public init(spot: String?, x: Double, y: Double, floor: Int) {
        self.spot = spot
        self.x = x
        self.y = y
        self.floor = floor
    }

    /// The spot's name, or for a line without one a name made of its coordinates (`x,y,floor`): the
    /// name a spot created from the log gets.
    public var spotName: String { spot ?? "\(x),\(y),\(floor)" }
}
