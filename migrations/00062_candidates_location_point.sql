-- The radius index of candidates as points of longitude and latitude instead of earth cubes.
-- Postgres builds a GiST index of points sorted (point_ops has sort support since 14): at a
-- million candidates of the seed 2 s against 32 s for the cubes (cube has no sort support, so
-- each row was inserted down the tree), on the critical path of `recruitd seed demo`. A radius
-- search (internal/talent, radiusBoxes) finds its rows in the longitude-latitude boxes that hold
-- its circle and keeps the ones earth_distance puts within it, as it kept the ones of earth_box.

-- +goose Up
DROP INDEX candidates_earth_idx;
CREATE INDEX candidates_location_idx ON candidates USING gist (point(longitude, latitude))
    WHERE latitude IS NOT NULL AND longitude IS NOT NULL;

-- +goose Down
DROP INDEX candidates_location_idx;
CREATE INDEX candidates_earth_idx ON candidates USING gist (earth_point(latitude, longitude))
    WHERE latitude IS NOT NULL AND longitude IS NOT NULL;
