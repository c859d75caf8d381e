#!/usr/bin/env python3
"""Synthetic customer file for `sanctions watchlist import` at bank scale.

    python3 scripts/gen_watchlist.py 10000000 > customers.csv
    python3 scripts/gen_watchlist.py 50000 --bad 25 --seed 7 > small.csv

Writes `customer_id,name,type,country` (UTF-8, one customer per line): people of mixed
origins (Anglo, Hispanic and Lusophone, German, French, Italian, Slavic, Turkish, Arabic,
Persian, South Asian, Chinese, Vietnamese, Korean, Japanese, West African; given names,
middle names, compound and patronymic surnames, surnames built from roots and each origin's
suffixes so that millions of lines stay mostly distinct) and about one in eight a company
(a surname or two words with an industry word and a legal form). Some names keep their
accents or are written in Cyrillic or Arabic letters, as customer files do.

`--bad N` puts N refused rows at random lines (an empty name, a name of punctuation, a
type that is neither individual nor entity, a line with invalid UTF-8); their line numbers
are printed to standard error, one per line, so that a test can check the report.
Deterministic for a given `--seed`.
"""

import argparse
import random
import sys

ORIGINS = {
    # origin: (countries, given names, surname roots, surname suffixes, middle style)
    "anglo": (["GB", "US", "CA", "AU", "IE", "NZ"],
              "James John Robert Michael William David Richard Joseph Thomas Charles Mary "
              "Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Emily Olivia "
              "Amelia Harry George Oliver Jack Noah Grace Chloe Megan Ryan Liam Sean Aoife".split(),
              "Smith John Will Brown Tay Mill Wil Thom Rob Walk Wright Hugh Ed Green Hall Wood "
              "Harr Mart Jack Clark Lewis Allen King Scott Bak Carter Mitch Turn Park Cole "
              "Fletch Hunt Ash Brad Crow Fox Lang Mor Pen Rad Shel Stan Wat Whit".split(),
              ["", "s", "son", "er", "ford", "ley", "ton", "well", "wood", "field", "man", "ham"],
              "initial"),
    "hispanic": (["ES", "MX", "AR", "CO", "PE", "CL", "BR", "PT"],
                 "José Juan Luis Carlos Jorge Miguel Antonio Francisco Javier Pedro Alejandro "
                 "Manuel María Carmen Ana Laura Isabel Sofía Lucía Paula Marta Rosa Elena Joao "
                 "Gonçalo Tiago Beatriz Inês Mariana Rafael Diego Andrés Valentina".split(),
                 "Garc Rodr Mart Hern Lop Gonz Pér Sánch Ram Flor Torr Riv Gom Diaz Vargas "
                 "Castill Morales Ortiz Gutiérr Ruiz Alvar Mendo Silv Sant Olive Pere Costa "
                 "Ferr Almeid Carvalh Sous Ribeir Pint Nun".split(),
                 ["ez", "ía", "ez", "es", "o", "a", "eira", "iro", "ado", "ón", "illa", ""],
                 "double_surname"),
    "german": (["DE", "AT", "CH", "NL"],
               "Hans Peter Klaus Jürgen Stefan Andreas Thomas Michael Wolfgang Ursula Sabine "
               "Petra Monika Julia Katrin Anna Lena Lukas Jonas Felix Maximilian Sophie Jan "
               "Pieter Daan Sanne Femke".split(),
               "Müll Schmid Schneid Fisch Web Meyer Wagn Beck Schulz Hoff Koch Rich Klein Wolf "
               "Schröd Neu Schwarz Zimmer Braun Krüg Hart Lang Werner Krau Stein Berg Jans "
               "Vries Bakk Visser".split(),
               ["er", "", "mann", "ner", "ig", "ing", "hofer", "inger", "sen", "stein", "berg"],
               "second_given"),
    "french": (["FR", "BE", "CH", "CA", "SN", "CI"],
               "Jean Pierre Michel Philippe Alain Nicolas François Julien Camille Marie "
               "Nathalie Isabelle Sylvie Céline Chloé Manon Léa Louis Hugo Théo Mathilde "
               "Aurélien Benoît Gaëlle".split(),
               "Mart Bern Dub Thom Rob Rich Petit Dur Leroy Moreau Simon Laurent Lef Mich "
               "Garn Dav Bertr Roux Vinc Fourn Morel Gir Andr Mercier Blanc Guér Boy".split(),
               ["in", "ard", "ois", "eau", "et", "ier", "on", "ault", "and", "", "elle"],
               "hyphen_given"),
    "italian": (["IT", "SM", "CH", "AR"],
                "Giuseppe Giovanni Antonio Mario Luigi Francesco Angelo Vincenzo Pietro "
                "Salvatore Maria Anna Giulia Francesca Chiara Sara Alessandro Matteo Lorenzo "
                "Federica Elisa".split(),
                "Ross Russ Ferr Espos Bianc Roman Colomb Ricc Marin Grec Bruno Gallo Conti "
                "De Luc Mancin Costa Giordan Rizz Lombard Moret Barbier Fontan Santor".split(),
                ["i", "o", "ini", "etti", "elli", "one", "ucci", "ano", "a", ""],
                "none"),
    "slavic": (["RU", "UA", "BY", "PL", "CZ", "RS", "BG", "KZ"],
               "Aleksandr Sergei Dmitri Andrei Alexei Maxim Ivan Mikhail Nikolai Vladimir "
               "Olga Tatiana Elena Natalia Irina Svetlana Anna Maria Yulia Ekaterina Piotr "
               "Krzysztof Tomasz Agnieszka Katarzyna Bogdan Oksana Taras".split(),
               "Ivan Smirn Kuzn Popov Vasil Petr Sokol Mikhail Novik Fedor Moroz Volk Alex "
               "Lebed Semen Egor Pavl Kozl Stepan Nikol Orl Andre Makar Zakhar Kowal Wiśniew "
               "Kamin Lewandow Zieliń Shevch Bondar Tkach Kravch".split(),
               ["ov", "ev", "in", "enko", "ski", "sky", "chuk", "ovich", "ova", "ak", "yuk"],
               "patronymic"),
    "turkish": (["TR", "AZ", "CY", "DE"],
                "Mehmet Mustafa Ahmet Ali Hüseyin Hasan İbrahim Murat Emre Burak Ayşe Fatma "
                "Emine Hatice Zeynep Elif Merve Özlem Can Cem Deniz Kerem".split(),
                "Yılmaz Kaya Demir Şahin Çelik Yıldız Yıldırım Öztürk Aydın Özdemir Arslan "
                "Doğan Kılıç Aslan Çetin Kara Koç Kurt Özkan Şimşek Polat Korkmaz".split(),
                ["", "oğlu", "er", "han", "can", "soy", "kaya", "taş"],
                "second_given"),
    "arabic": (["SA", "AE", "EG", "JO", "LB", "IQ", "SY", "MA", "DZ", "TN", "QA", "KW"],
               "Mohammed Muhammad Ahmed Ali Omar Youssef Khalid Hassan Hussein Ibrahim "
               "Abdullah Abdulrahman Mahmoud Mustafa Tariq Fatima Aisha Maryam Noor Layla "
               "Huda Salma Zainab Rania Karim Samir Walid Nabil Faisal Hamza".split(),
               "Al-Rash Al-Hash Haddad Khour Mans Nasr Saleh Hamd Qur Shar Zah Jab Tah Aziz "
               "Bakr Farh Ghan Habib Jam Kab Mahf Najj Rahm Sab Tam Yas Zaid Obeid Dabb".split(),
               ["", "i", "a", "an", "awi", "ani", "id", "oun", "ir", "ah"],
               "nasab"),
    "persian": (["IR", "AF", "TJ"],
                "Reza Mohammad Hossein Mehdi Ali Amir Hamid Saeed Majid Farhad Maryam Zahra "
                "Fatemeh Sara Narges Leila Shirin Parisa Dariush Kourosh Babak".split(),
                "Ahmad Hossein Moham Rez Karim Rahim Jafar Sadegh Tehran Esfahan Shir Kerman "
                "Nazar Ghor Mous Hashem Bagher Akbar Rost Khan".split(),
                ["i", "zadeh", "pour", "nejad", "ian", "far", "ani", "lou", "vand"],
                "none"),
    "south_asian": (["IN", "PK", "BD", "LK", "NP"],
                    "Rahul Amit Sanjay Vijay Rajesh Suresh Anil Sunil Arjun Rohan Priya "
                    "Anjali Sunita Pooja Neha Kavita Deepa Lakshmi Imran Asif Bilal Sana "
                    "Ayesha Farhan Tanvir Rashed Nimal Kumari".split(),
                    "Shar Verm Gupt Sing Kum Pat Red Rao Nair Iyer Mehr Chopr Kapo Malh Jos "
                    "Desa Bhat Khan Qures Choud Hoss Rahm Islam Perer Fernand Sil Bandar".split(),
                    ["ma", "a", "h", "ar", "el", "dy", "an", "i", "", "ee", "ain", "anayake"],
                    "initial"),
    "chinese": (["CN", "TW", "HK", "SG", "MY"],
                "Wei Fang Jing Li Min Jun Hui Ying Lei Yan Hao Qiang Xin Jie Lin Ming Tao "
                "Hong Yu Chen Xiaoming Xiaoling Zhiwei Jianguo Yongmei Guoqiang Lihua "
                "Haoran Zihan Yuxuan".split(),
                "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin "
                "Gao Luo Zheng Liang Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian "
                "Dong Pan Yuan Cai Jiang Yu Du Ye Cheng Wei Su Lü Ding Ren Lu Yao Shen".split(),
                [""],
                "surname_first"),
    "vietnamese": (["VN"],
                   "Anh Minh Hung Tuan Dung Long Nam Hai Thanh Hoa Lan Mai Linh Huong Thu "
                   "Ngoc Phuong Trang Quang Duc".split(),
                   "Nguyen Tran Le Pham Hoang Huynh Phan Vu Vo Dang Bui Do Ho Ngo Duong Ly".split(),
                   [""],
                   "viet"),
    "korean_japanese": (["KR", "JP"],
                        "Min-jun Seo-yeon Ji-ho Ha-eun Do-yun Ji-woo Hiroshi Takashi Kenji "
                        "Yuki Haruto Sota Yui Aoi Sakura Daiki Naoko Keiko Jin Sung-min".split(),
                        "Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim Sato Suzuki Takahashi "
                        "Tanaka Watanabe Ito Yamamoto Nakamura Kobayashi Kato Yoshida "
                        "Yamada Sasaki Matsumoto Inoue Kimura Hayashi Shimizu".split(),
                        ["", "", "moto", "da", "kawa", "no", "hara", "yama", "mura"],
                        "none"),
    "west_african": (["NG", "GH", "SN", "CI", "CM", "KE"],
                     "Chinedu Emeka Oluwaseun Adebayo Babatunde Ngozi Chiamaka Funmilayo "
                     "Abimbola Kwame Kofi Ama Akosua Yaw Moussa Aminata Fatou Ousmane Ibrahima "
                     "Wanjiru Otieno Achieng Tunde Kelechi".split(),
                     "Okaf Ade Ogun Eze Nwos Bello Mensah Asante Owusu Boateng Diallo Traor "
                     "Coulib Camar Ndiaye Diop Kamau Otien Mwang Okon Obi Uche Oke".split(),
                     ["or", "yemi", "bayo", "u", "", "e", "ola", "ah", "ore", "ku"],
                     "initial"),
}
WEIGHTS = {"anglo": 16, "hispanic": 14, "german": 7, "french": 7, "italian": 5, "slavic": 10,
           "turkish": 5, "arabic": 10, "persian": 3, "south_asian": 9, "chinese": 7,
           "vietnamese": 2, "korean_japanese": 3, "west_african": 6}
INDUSTRY = ("Trading Logistics Holdings Shipping Energy Textiles Foods Imports Exports "
            "Construction Technologies Consulting Pharma Metals Agro Marine Capital Motors "
            "Electronics Minerals Petroleum Investments Services Group Industries").split()
LEGAL = ["Ltd", "LLC", "GmbH", "S.A.", "S.A. de C.V.", "SARL", "S.p.A.", "B.V.", "A.Ş.",
         "OOO", "FZE", "FZCO", "Pvt Ltd", "Co., Ltd.", "Inc.", "Limited", "PLC", "AG",
         "Sp. z o.o.", "JSC", "W.L.L.", ""]
CYRILLIC = str.maketrans({"a": "а", "b": "б", "v": "в", "g": "г", "d": "д", "e": "е",
                          "z": "з", "i": "и", "k": "к", "l": "л", "m": "м", "n": "н",
                          "o": "о", "p": "п", "r": "р", "s": "с", "t": "т", "u": "у",
                          "f": "ф", "h": "х", "y": "ы", "A": "А", "B": "Б", "V": "В",
                          "G": "Г", "D": "Д", "E": "Е", "Z": "З", "I": "И", "K": "К",
                          "L": "Л", "M": "М", "N": "Н", "O": "О", "P": "П", "R": "Р",
                          "S": "С", "T": "Т", "U": "У", "F": "Ф", "H": "Х", "Y": "Ы"})
SYLLABLES = ("Xiao Ming Li Hua Wei Jian Guo Yong Mei Zhi Hao Ran Zi Yu Xuan Jun Hong Lin "
             "Qing Chun Dong Feng Hai Jia Jie Kai Lan Long Ning Ping Rui Shan Tian Wen Xin "
             "Yi Yun Zhen").split()
BAD = ["", "---", "?!", "individual-ish"]


INFIXES = ["", "", "", "", "an", "el", "er", "in", "or", "al", "en", "ar", "om", "il", "us"]


def surname(rng, roots, suffixes):
    root = rng.choice(roots)
    if len(root) > 3 and " " not in root:
        root += rng.choice(INFIXES)
    return root + rng.choice(suffixes)


def person(rng, origin):
    countries, given, roots, suffixes, style = ORIGINS[origin]
    first, last = rng.choice(given), surname(rng, roots, suffixes)
    if style == "surname_first":
        given_name = rng.choice(SYLLABLES) + rng.choice(SYLLABLES).lower()
        if rng.random() < 0.3:
            return f"{given_name} {rng.choice(roots)}"
        if rng.random() < 0.15:
            return f"{rng.choice(roots)} {given_name} {rng.choice(ORIGINS['anglo'][1])}"
        return f"{rng.choice(roots)} {given_name}"
    if style == "viet":
        return f"{rng.choice(roots)} {rng.choice(given)} {rng.choice(given)} {first}"
    extra = rng.random()
    if style == "initial" and extra < 0.5:
        return f"{first} {chr(65 + rng.randrange(26))}. {last}"
    if style == "double_surname" and extra < 0.6:
        return f"{first} {last} {surname(rng, roots, suffixes)}"
    if style in ("second_given", "hyphen_given") and extra < 0.4:
        join = "-" if style == "hyphen_given" else " "
        return f"{first}{join}{rng.choice(given)} {last}"
    if style == "patronymic" and extra < 0.5:
        name = f"{first} {rng.choice(given)}ovich {last}"
        return name.translate(CYRILLIC) if rng.random() < 0.1 else name
    if style == "nasab" and extra < 0.6:
        return f"{first} {rng.choice(given)} {rng.choice(given)} {last}"
    if extra < 0.85:
        return f"{first} {chr(65 + rng.randrange(26))}. {last}"
    return f"{last.upper()}, {first} {rng.choice(given)}"


def company(rng, origin):
    _, _, roots, suffixes, _ = ORIGINS[origin]
    words = [surname(rng, roots, suffixes)]
    if rng.random() < 0.4:
        words.append(surname(rng, roots, suffixes))
    words.append(rng.choice(INDUSTRY))
    if rng.random() < 0.3:
        words.append(rng.choice(INDUSTRY))
    return " ".join(words + [rng.choice(LEGAL)]).strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lines", type=int)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--bad", type=int, default=0, help="refused rows to put in")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    origins = list(WEIGHTS)
    weights = [WEIGHTS[o] for o in origins]
    bad_lines = set(rng.sample(range(2, args.lines + 2), min(args.bad, args.lines)))
    out = sys.stdout.buffer
    out.write(b"customer_id,name,type,country\n")
    batch = []
    for i in range(args.lines):
        line = i + 2
        if line in bad_lines:
            kind = rng.randrange(5)
            if kind == 4:
                batch.append(f"C{i:09d},".encode() + b"Jos\xe9 \xff\n")
            elif kind == 3:
                batch.append(f"C{i:09d},Ana Lima,robot,BR\n".encode())
            else:
                batch.append(f"C{i:09d},{BAD[kind]},individual,XX\n".encode())
            print(line, file=sys.stderr)
            continue
        origin = rng.choices(origins, weights)[0]
        country = rng.choice(ORIGINS[origin][0])
        if rng.random() < 0.125:
            name, kind = company(rng, origin), "entity"
        else:
            name, kind = person(rng, origin), "individual"
        if "," in name or '"' in name:
            name = '"' + name.replace('"', '""') + '"'
        batch.append(f"C{i:09d},{name},{kind},{country}\n".encode())
        if len(batch) >= 10000:
            out.write(b"".join(batch))
            batch.clear()
    out.write(b"".join(batch))


if __name__ == "__main__":
    main()
