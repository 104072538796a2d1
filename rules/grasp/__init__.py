"""GRASP (Generic Rules for All Scales and Periods): die levels, fatigue, combat, terrain."""
