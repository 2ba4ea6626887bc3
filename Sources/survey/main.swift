print("survey")
