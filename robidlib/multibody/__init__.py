"""Mixed, fully Cartesian coordinates with a generic rigid body (FCC-GRB).

Kinematically consistent joint angles, velocities, accelerations and joint moments from
marker data, after Goncalves, Roupa, Flores and Tavares da Silva (Mechanism and Machine
Theory 214, 2025, 106080) and the natural/fully Cartesian coordinates of Garcia de Jalon and
Bayo (1994).

Submodules
----------
body         generic rigid body: C^P, C^s, reduced <-> fully defined form, mass matrix
constraints  rigid body, spherical, revolute, MCR, AR driver, tracking (TC, TOC)
system       MultibodySystem: bodies, joints, angles, markers and the coordinate layout
solvers      NRM-LS, NRM-WLS, SLSQP, trust-constr, goal attainment (MO), angle-driven;
             velocity/acceleration analyses
drivers      angular-relation drivers (AR) of the classical formulation, without angles
dynamics     M qdd + Phi_q' lambda = Q and joint moments from the multipliers
models       simple spatial chain, five-body chain, reference motion, marker perturbation
study        the paper's scenarios, compare_solvers (one table row per solver), the stored
             study of chapter 10
"""

from . import models, study
from .body import (GROUND, RigidBody, body_coordinates, body_pose, check_body_vectors,
                   expansion_jacobian, full_to_reduced, generic_mass_matrix, point_matrix,
                   reduced_to_full, skew, vector_matrix)
from .constraints import (AngleDriver, Constraint, Marker, MarkerTracking,
                          MixedCoordinateRelation, Revolute, RigidBodyConstraints, Spherical,
                          TrackedVector, VectorTracking)
from .drivers import (ARKinematics, AngularRelation, angular_relations, classical_system,
                      solve_angular_relations)
from .dynamics import InverseDynamicsResult, gravity_forces, inverse_dynamics, mass_matrix
from .solvers import (METHODS, KinematicsResult, angles_from_markers, pose_from_markers,
                      solve_accelerations, solve_driven, solve_kinematics, solve_velocities)
from .study import (SOLVER_CASES, SolverComparison, compare_solvers, load_mixed_study,
                    marker_subset, perturb_coordinates, solve_independently)
from .system import MultibodySystem

__all__ = [
    "GROUND", "RigidBody", "body_coordinates", "body_pose", "check_body_vectors",
    "expansion_jacobian", "full_to_reduced", "generic_mass_matrix", "point_matrix",
    "reduced_to_full", "skew", "vector_matrix",
    "AngleDriver", "Constraint", "Marker", "MarkerTracking", "MixedCoordinateRelation",
    "Revolute", "RigidBodyConstraints", "Spherical", "TrackedVector", "VectorTracking",
    "MultibodySystem",
    "METHODS", "KinematicsResult", "angles_from_markers", "pose_from_markers",
    "solve_accelerations", "solve_driven", "solve_kinematics", "solve_velocities",
    "InverseDynamicsResult", "gravity_forces", "inverse_dynamics", "mass_matrix",
    "ARKinematics", "AngularRelation", "angular_relations", "classical_system",
    "solve_angular_relations",
    "SOLVER_CASES", "SolverComparison", "compare_solvers", "load_mixed_study", "marker_subset",
    "perturb_coordinates", "solve_independently",
    "models", "study",
]
